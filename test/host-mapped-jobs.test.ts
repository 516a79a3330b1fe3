/**
 * The jobs and ops on zero-copy host access: `output: 'mapped'` results (PET, countModules) are
 * views of device memory equal to the host copies and release it on `free()`; on webgpu the
 * same option gives copies. The pixel store packed in place has zero padding even over dirty
 * memory; STS host input and output through views sorts as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDevice, type Device } from '../src/device.js';
import type { GpuDevice } from '../src/deviceApi.js';
import { generatePetData } from '../src/jobs/pet/generate.js';
import { petMemoryBytes, PetOptionsError, runPet } from '../src/jobs/pet/run.js';
import { PetFrameError } from '../src/jobs/pet/reference.js';
import { TruncatedFrameError } from '../src/jobs/pet/format.js';
import { countModules } from '../src/ops/countModules.js';
import { pixelClustering, uploadPixelStore } from '../src/jobs/pixel/run.js';
import { generatePixelEvent } from '../src/jobs/pixel/generate.js';
import { packSoa, unpackSoa } from '../src/jobs/pixel/soa.js';
import { stsSort } from '../src/jobs/sts/run.js';
import { rng } from './helpers.js';

const BACKENDS = ['wasm', 'serial', 'webgpu'] as const;

describe.each(BACKENDS)('on %s', (backend) => {
  let dev: GpuDevice;
  let setupError: unknown;
  beforeAll(async () => {
    try {
      dev = await createDevice(backend === 'webgpu' ? { backend, memoryBytes: 64 << 20 }
        : { backend, memoryBytes: 64 << 20, seed: 3, ...(backend === 'wasm' ? { workers: 2 } : {}) });
    } catch (e) { setupError = e; }
  });
  afterAll(async () => { await dev?.destroy(); });
  const device = () => { if (setupError !== undefined) throw setupError; return dev; };

  it('countModules output "mapped": clusterId is a view until free()', async () => {
    const ids = new Uint16Array([5, 5, 7, 7, 65534, 7, 9, 9, 9]);
    const host = await countModules(device(), ids, { nMaxModules: 16 });
    const before = device().memoryInfo().allocations;
    const mapped = await countModules(device(), ids, { nMaxModules: 16, output: 'mapped' });
    expect(Array.from(mapped.clusterId)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(Array.from(mapped.moduleStartSorted)).toEqual(Array.from(host.moduleStartSorted));
    expect(mapped.mapped).toBe(device().hostMapped);
    expect(device().memoryInfo().allocations).toBe(before + (device().hostMapped ? 1 : 0));
    mapped.free();
    expect(device().memoryInfo().allocations).toBe(before);
  });

  it('countModules of an empty id array, mapped', async () => {
    const r = await countModules(device(), new Uint16Array(0), { output: 'mapped' });
    expect(r.count).toBe(0);
    expect(r.clusterId.length).toBe(0);
    r.free();
  });

  it('the pixel store packed in place has zero padding over dirty memory and unpacks to the columns', async () => {
    // Dirty the heap first: the store's allocation may reuse these bytes.
    const dirt = device().alloc('u8', 1 << 16);
    await dirt.fill(0xff);
    dirt.free();
    const r = rng(9);
    for (const n of [1, 7, 65, 130]) {
      const cols = {
        moduleInd: Uint16Array.from({ length: n }, () => Math.floor(r() * 4000)),
        xx: Uint16Array.from({ length: n }, () => Math.floor(r() * 416)),
        yy: Uint16Array.from({ length: n }, () => Math.floor(r() * 160)),
        adc: Uint16Array.from({ length: n }, () => Math.floor(r() * 65535)),
        clus: Int32Array.from({ length: n }, (_, i) => i - 3),
        pdigi: new Uint32Array(n).fill(0xdeadbeef),
        rawIdArr: Uint32Array.from({ length: n }, (_, i) => i * 977),
      };
      const store = await uploadPixelStore(device(), cols, n + 3);
      try {
        const bytes = await store.bytes.read();
        expect(Array.from(bytes)).toEqual(Array.from(packSoa(cols, n + 3)));
        const back = unpackSoa(bytes, n + 3, n);
        expect(Array.from(back.clus)).toEqual(Array.from(cols.clus));
        expect(Array.from(back.rawIdArr)).toEqual(Array.from(cols.rawIdArr));
        expect(Array.from(back.yy)).toEqual(Array.from(cols.yy));
        // An unaligned copy of the store takes the DataView path: the same columns.
        const odd = new Uint8Array(bytes.length + 1);
        odd.set(bytes, 1);
        expect(Array.from(unpackSoa(odd.subarray(1), n + 3, n).pdigi)).toEqual(Array.from(cols.pdigi));
      } finally {
        store.bytes.free();
      }
    }
  });

  it('pixelClustering output "mapped": views of the store equal to the host copies, released by free()', async () => {
    const ev = generatePixelEvent({ seed: 2, activeModules: 40, clustersPerModule: 6 });
    const cols = { moduleInd: ev.moduleInd, xx: ev.xx, yy: ev.yy, adc: ev.adc };
    const host = await pixelClustering(device(), cols, { seed: 1 });
    const before = device().memoryInfo().allocations;
    const mapped = await pixelClustering(device(), cols, { seed: 1, output: 'mapped' });
    expect(mapped.mapped).toBe(device().hostMapped);
    expect(host.mapped).toBe(false);
    expect(Array.from(mapped.storeBytes)).toEqual(Array.from(host.storeBytes));
    expect(Array.from(mapped.clusterId)).toEqual(Array.from(host.clusterId));
    expect(Array.from(mapped.id)).toEqual(Array.from(host.id));
    expect(mapped.clusterId.length).toBe(ev.n);
    expect(device().memoryInfo().allocations).toBe(before + (device().hostMapped ? 1 : 0));
    mapped.free();
    host.free();
    expect(device().memoryInfo().allocations).toBe(before);
  });

  it('stsSort from {channel, time} to host arrays through views, odd and tiny sizes', async () => {
    const r = rng(4);
    for (const n of [0, 1, 2, 5, 333]) {
      const channel = Uint32Array.from({ length: n }, () => Math.floor(r() * 7));
      const time = Uint32Array.from({ length: n }, (_, i) => i);
      const res = await stsSort(device(), { channel, time }, { nChannels: 7 });
      const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => channel[a]! - channel[b]! || a - b);
      expect(Array.from(res.channel!)).toEqual(order.map((i) => channel[i]));
      expect(Array.from(res.time!)).toEqual(order.map((i) => time[i]));
    }
  });
});

// runPet's 512-thread sort tiles exceed SwiftShader's 256: the whole job runs on wasm and serial
// here (test/webgpu-pet.test.ts runs its stages on webgpu).
describe.each(['wasm', 'serial'] as const)('runPet on %s', (backend) => {
  let dev: Device;
  beforeAll(async () => { dev = await createDevice({ backend, memoryBytes: 64 << 20, seed: 3, ...(backend === 'wasm' ? { workers: 2 } : {}) }); });
  afterAll(async () => { await dev?.destroy(); });
  const device = () => dev;

  it('runPet output "mapped": views equal to the host copies, released by free()', async () => {
    const ds = generatePetData({ nFrames: 3000, seed: 5 });
    const tables = { positionTable: ds.positionTable, energyTable: ds.energyTable };
    const host = await runPet(device(), ds.frames, ds.geometry, tables);
    const before = device().memoryInfo().allocations;
    const mapped = await runPet(device(), ds.frames, ds.geometry, tables, { output: 'mapped' });
    expect(host.mapped).toBe(false);
    expect(mapped.mapped).toBe(true);
    expect(mapped.sorted.time.length).toBeGreaterThan(1000);
    // The sorted singles and the pairs are schedule independent: equal element for element.
    expect(Array.from(mapped.sorted.time)).toEqual(Array.from(host.sorted.time));
    expect(Array.from(mapped.sorted.crystal)).toEqual(Array.from(host.sorted.crystal));
    expect(Array.from(mapped.sorted.energy)).toEqual(Array.from(host.sorted.energy));
    expect(mapped.pairs.count).toBe(host.pairs.count);
    expect(mapped.pairs.count).toBeGreaterThan(10);
    for (const k of ['index0', 'index1', 'crystal0', 'crystal1', 'energy0', 'energy1', 'time0', 'time1'] as const) {
      expect(Array.from(mapped.pairs[k]), k).toEqual(Array.from(host.pairs[k]));
      expect(mapped.pairs[k].buffer, k).toBe(device().memory.buffer);
    }
    expect(mapped.singles.time.length).toBe(host.singles.time.length);
    expect(mapped.sorted.time.buffer).toBe(device().memory.buffer);
    // singles and sorted: 3 arrays each; the pair table: 8 columns
    expect(device().memoryInfo().allocations).toBe(before + 14);
    mapped.free();
    mapped.free(); // twice is harmless
    host.free();
    expect(device().memoryInfo().allocations).toBe(before);
  });


  it('petMemoryBytes counts the held outputs of a mapped run, and a mapped run fits it', async () => {
    const ds = generatePetData({ nFrames: 5000, seed: 6 });
    const cap = 8192;
    expect(petMemoryBytes(5000, ds.geometry, 'mapped') - petMemoryBytes(5000, ds.geometry)).toBe(2 * cap * 16);
    const small = await createDevice({ backend, workers: 1, memoryBytes: Math.ceil((petMemoryBytes(5000, ds.geometry, 'mapped') + (4 << 20)) / 65536) * 65536 });
    try {
      const r = await runPet(small, ds.frames, ds.geometry, { positionTable: ds.positionTable, energyTable: ds.energyTable }, { output: 'mapped' });
      expect(r.sorted.time.length).toBeGreaterThan(0);
      r.free();
    } finally {
      await small.destroy();
    }
  });

  it('runPet reads frames already on the device (no upload), leaves them, and reports their bad frames', async () => {
    const ds = generatePetData({ nFrames: 2000, seed: 8 });
    const tables = { positionTable: ds.positionTable, energyTable: ds.energyTable };
    const host = await runPet(device(), ds.frames, ds.geometry, tables);
    const frames = device().alloc('u8', ds.frames.length);
    try {
      frames.view().set(ds.frames);
      const onDevice = await runPet(device(), frames, ds.geometry, tables);
      expect(Array.from(onDevice.sorted.time)).toEqual(Array.from(host.sorted.time));
      expect(onDevice.pairs.count).toBe(host.pairs.count);
      expect(frames.freed).toBe(false);
      expect(Array.from(frames.view(0, 64))).toEqual(Array.from(ds.frames.subarray(0, 64)));
      // A frame whose BDM is outside the geometry: the same PetFrameError text as from host frames.
      const bad = ds.frames.slice();
      bad[16 * 1234 + 1] = 250;
      frames.view().set(bad);
      const fromHost = await runPet(device(), bad, ds.geometry, tables).catch((e: Error) => e);
      const fromDevice = await runPet(device(), frames, ds.geometry, tables).catch((e: Error) => e);
      expect(fromDevice).toBeInstanceOf(PetFrameError);
      expect((fromDevice as Error).message).toBe((fromHost as Error).message);
      expect((fromDevice as Error).message).toContain('frame 1234');
    } finally {
      frames.free();
    }
    const ragged = device().alloc('u8', 17);
    const wrongType = device().alloc('u32', 16);
    try {
      await expect(runPet(device(), ragged, ds.geometry, tables)).rejects.toThrow(TruncatedFrameError);
      await expect(runPet(device(), wrongType as never, ds.geometry, tables)).rejects.toThrow(PetOptionsError);
    } finally {
      ragged.free(); wrongType.free();
    }
  });
});
