// PET pipeline (seed 001) benchmarks: each stage and the whole job, on generated frames, at
// 1M and 16M frames (quick: 64K). `ms` of a stage is its median over the runs; the
// "compute" record is convert + sort + coincidences (what a native pipeline's timing covers:
// no host↔device copies), "end-to-end" adds the uploads and the read-back of every output
// (host copies), "end-to-end, mapped outputs" the same with the outputs left as views of device
// memory (runPet's output: 'mapped').
// Reference point: native C++/OpenMP on a 2-core machine does convert + radix sort +
// coincidences of 16M frames in ~0.9 s.
import { type BenchContext, type BenchRecord, type BenchSuite, median, progress, record, warmUp } from './harness.js';
import { createDevice } from '../src/device.js';
import { generatePetData } from '../src/jobs/pet/generate.js';
import { petMemoryBytes, runPet, type PetRunResult } from '../src/jobs/pet/run.js';
import { geometrySizes } from '../src/jobs/pet/geometry.js';
import { buildNative } from './native/index.js';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The native C pipeline (bench/native/pet.c) on the same frames and tables, if a compiler is there. */
function nativeRecords(ds: ReturnType<typeof generatePetData>, ctx: BenchContext, runs: number): BenchRecord[] {
  const build = buildNative();
  const bin = build.bins['pet'];
  if (!bin) { ctx.log(`pet: native baseline skipped (${build.note})`); return []; }
  const dir = mkdtempSync(join(tmpdir(), 'simt-pet-native-'));
  try {
    writeFileSync(join(dir, 'frames.bin'), ds.frames);
    writeFileSync(join(dir, 'pos.bin'), ds.positionTable);
    writeFileSync(join(dir, 'energy.bin'), new Uint8Array(ds.energyTable.buffer, ds.energyTable.byteOffset, ds.energyTable.byteLength));
    const g = ds.geometry, s = geometrySizes(g);
    const geo = [s.bdmCount, g.duNum, g.positionSize, s.crystalsPerDu, s.bdmPerRing, g.blockNumY, g.blockNumZ, g.crystalNumY, g.crystalNumZ, s.crystalsPerRing].join(',');
    progress(`pet native-c ${ds.nFrames} frames, ${ctx.workers} threads`);
    const line = execFileSync(bin, ['--frames', join(dir, 'frames.bin'), '--pos', join(dir, 'pos.bin'), '--energy', join(dir, 'energy.bin'),
      '--geo', geo, '--repeat', String(runs), '--threads', String(ctx.workers)], { maxBuffer: 1 << 20 }).toString().trim();
    const r = JSON.parse(line) as { threads: number; singles: number; pairs: number; convertMs: number; sortMs: number; coincidencesMs: number; msMedian: number; msMin: number; msAll?: number[] };
    const extra = { workers: r.threads, samples: runs, singles: r.singles, pairs: r.pairs, note: 'convert + LSD radix sort + sequential coincidences, OpenMP' };
    if (r.threads !== ctx.workers) ctx.log(`pet: native-c ran ${r.threads} threads, not ${ctx.workers} (built without OpenMP?)`);
    return [
      record('pet/convert', 'native-c', ds.nFrames, r.convertMs, { ...extra, bytes: ds.nFrames * 16 }),
      record('pet/sort', 'native-c', r.singles, r.sortMs, extra),
      record('pet/coincidences', 'native-c', r.singles, r.coincidencesMs, extra),
      record('pet/compute (convert+sort+coincidences)', 'native-c', ds.nFrames, r.msMedian, { ...extra, minMs: r.msMin }),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const STAGES = ['convert', 'sort', 'coincidences', 'upload', 'download', 'total'] as const;

async function benchSize(n: number, ctx: BenchContext, runs: number): Promise<BenchRecord[]> {
  const t0 = performance.now();
  const ds = generatePetData({ nFrames: n, seed: 1 });
  progress(`pet: generated ${n} frames in ${(performance.now() - t0).toFixed(0)} ms; ${runs} runs`);
  const memoryBytes = Math.min(4 * 2 ** 30 - 65536, Math.ceil((petMemoryBytes(n, ds.geometry, 'mapped') + n * 16 /* the device frames */ + (64 << 20)) / 65536) * 65536);
  const dev = await createDevice({ memoryBytes, workers: ctx.workers });
  const tables = { positionTable: ds.positionTable, energyTable: ds.energyTable };
  try {
    // Warm-up: V8's baseline tier and the first touch of the device memory's pages.
    await warmUp(() => runPet(dev, ds.frames, ds.geometry, tables), 2, ctx.warmupMs);
    const results: PetRunResult[] = [];
    // Each run also once with mapped outputs (views of device memory, no read-back copies), in
    // turn, so both see the same machine load.
    // And with the frames already in device memory (no upload either: what a reader that fills
    // array.view() from the file gets).
    const mappedTotals: number[] = [], mappedComputes: number[] = [], zeroTotals: number[] = [], zeroComputes: number[] = [];
    const dFrames = dev.alloc('u8', ds.frames.length);
    dFrames.view().set(ds.frames);
    for (let k = 0; k < runs; k++) {
      results.push(await runPet(dev, ds.frames, ds.geometry, tables));
      for (const frames of [ds.frames, dFrames]) {
        const r = await runPet(dev, frames, ds.geometry, tables, { output: 'mapped' });
        (frames === dFrames ? zeroTotals : mappedTotals).push(r.timings.total);
        (frames === dFrames ? zeroComputes : mappedComputes).push(r.timings.convert + r.timings.sort + r.timings.coincidences);
        r.free();
      }
    }
    dFrames.free();
    const last = results[results.length - 1]!;
    const m = last.sorted.time.length;
    const stage = (s: (typeof STAGES)[number]) => median(results.map((r) => r.timings[s]));
    const stageMin = (s: (typeof STAGES)[number]) => Math.min(...results.map((r) => r.timings[s]));
    const computes = results.map((r) => r.timings.convert + r.timings.sort + r.timings.coincidences);
    const compute = median(computes);
    const perKernel = new Map<string, number[]>();
    for (const r of results) {
      const sums = new Map<string, number>();
      for (const l of r.launches) sums.set(l.kernel, (sums.get(l.kernel) ?? 0) + l.elapsedMs);
      for (const [k, v] of sums) perKernel.set(k, [...(perKernel.get(k) ?? []), v]);
    }
    const extra = { workers: dev.workers, singles: m, pairs: last.pairs.count };
    const times = (s: (typeof STAGES)[number]) => results.map((r) => r.timings[s]);
    const out: BenchRecord[] = [
      record('pet/convert', 'simt-wasm', n, stage('convert'), { ...extra, bytes: n * 16, minMs: stageMin('convert'), times: times('convert') }),
      record('pet/sort', 'simt-wasm', m, stage('sort'), { ...extra, mergePasses: last.mergePasses, minMs: stageMin('sort'), times: times('sort') }),
      record('pet/coincidences', 'simt-wasm', m, stage('coincidences'), { ...extra, minMs: stageMin('coincidences'), times: times('coincidences') }),
      record('pet/compute (convert+sort+coincidences)', 'simt-wasm', n, compute, { ...extra, minMs: Math.min(...computes), times: computes }),
      record('pet/end-to-end', 'simt-wasm', n, stage('total'), { ...extra, uploadMs: stage('upload'), downloadMs: stage('download'), minMs: stageMin('total'), times: times('total') }),
      record('pet/end-to-end, mapped outputs', 'simt-wasm', n, median(mappedTotals), { ...extra, computeMs: median(mappedComputes), minMs: Math.min(...mappedTotals), times: mappedTotals }),
      record('pet/end-to-end, device frames + mapped outputs', 'simt-wasm', n, median(zeroTotals), { ...extra, computeMs: median(zeroComputes), minMs: Math.min(...zeroTotals), times: zeroTotals }),
    ];
    for (const [k, v] of perKernel) out.push(record(`pet/kernel/${k}`, 'simt-wasm', n, median(v), { ...extra, times: v }));
    out.push(...nativeRecords(ds, ctx, runs));
    return out;
  } finally {
    await dev.destroy();
  }
}

export const suite: BenchSuite = {
  name: 'pet',
  description: 'PET pipeline of seed 001 per stage and end to end (1M and 16M frames)',
  quickDescription: 'PET pipeline of seed 001 per stage and end to end (64K frames)',
  async run(ctx) {
    const sizes = ctx.quick ? [1 << 16] : [1 << 20, 1 << 24];
    const out: BenchRecord[] = [];
    for (const n of sizes) out.push(...await benchSize(n, ctx, ctx.quick ? 3 : n >= 1 << 24 ? 5 : 9));
    return out;
  },
};
