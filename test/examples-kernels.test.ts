// The user's-guide kernels of examples/kernels/ (each with its CUDA original in a comment),
// compiled from their sources and checked against plain TS references on wasm and serial.
import { beforeAll, describe, expect, it } from 'vitest';
import { compileKernelFiles } from '../src/compiler/index.js';
import type { KernelModule } from '../src/kernelModule.js';
import type { Device } from '../src/device.js';
import { testDevice, rng } from './helpers.js';

let mod: KernelModule;
beforeAll(async () => {
  mod = await compileKernelFiles([...['histogram', 'transpose', 'shuffleSum', 'blockScan'].map((k) => `examples/kernels/${k}.ts`), 'kernels/reduce/vecMax.ts', 'kernels/pixel/countModules.ts']);
});

for (const backend of ['wasm', 'serial'] as const) {
  describe(`examples/kernels on ${backend}`, () => {
    let dev: Device;
    beforeAll(async () => { dev = await testDevice({ backend, workers: 2, seed: 5, memoryBytes: 64 << 20 }); await dev.load(mod); });

    for (const n of [0, 1, 255, 100_003]) {
      it(`histogram256 over ${n} bytes`, async () => {
        const r = rng(n + 1);
        const h = Uint8Array.from({ length: n }, () => Math.floor(r() * 256));
        const data = await dev.upload('u8', h.length ? h : [0]);
        const bins = dev.alloc('u32', 256); await bins.fill(0);
        await dev.launch(mod.kernels.histogram256!, { grid: 13, block: 96 }, [data, n, bins]);
        const ref = new Uint32Array(256); for (const v of h) ref[v]!++;
        expect(Array.from(await bins.read())).toEqual(Array.from(ref));
      });

      it(`shuffleSum and vecMax over ${n} floats`, async () => {
        const r = rng(n + 2);
        const a = Float32Array.from({ length: Math.max(n, 1) }, () => Math.round((r() - 0.5) * 2000));
        const A = await dev.upload('f32', a);
        const out = dev.alloc('f32', 1); await out.fill(0);
        await dev.launch(mod.kernels.shuffleSum!, { grid: 7, block: 128 }, [A, out, n]);
        // Integer-valued floats: every partial sum is exact, so any order of atomics gives the same total.
        expect((await out.read())[0]).toBe(a.subarray(0, n).reduce((x, y) => x + y, 0));
        const grid = 5, block = 256;
        const B = dev.alloc('f32', grid);
        await dev.launch(mod.kernels.vecMax!, { grid, block, sharedBytes: 4 * block }, [A, B, n]);
        const got = (await B.read()).reduce((x, y) => Math.max(x, y), -Infinity);
        expect(got).toBe(a.subarray(0, n).reduce((x, y) => Math.max(x, y), -Infinity));
      });
    }

    for (const [n, block] of [[0, 32], [1, 32], [70, 32], [1000, 256], [3000, 1024], [100, 64]] as const) {
      it(`blockScan (seed 001): n=${n}, block=${block}`, async () => {
        const r = rng(n + 5);
        const c = Uint32Array.from({ length: Math.max(n, 1) }, () => Math.floor(r() * 5));
        const C = await dev.upload('u32', c);
        const O = dev.alloc('u32', Math.max(n, 1)); await O.fill(7);
        await dev.launch(mod.kernels.blockScan!, { grid: Math.max(1, Math.ceil(n / block)), block }, [C, O, n]);
        const ref = Uint32Array.from({ length: Math.max(n, 1) }, () => 7);
        for (let g = 0, acc = 0; g < n; g++) { if (g % block === 0) acc = 0; acc += c[g]!; ref[g] = acc; }
        expect(Array.from(await O.read())).toEqual(Array.from(ref));
      });
    }

    for (const [w, h] of [[1, 1], [33, 17], [64, 64], [100, 37]] as const) {
      it(`transpose ${w}×${h}`, async () => {
        const m = Float32Array.from({ length: w * h }, (_, i) => i * 0.5);
        const inp = await dev.upload('f32', m); const o = dev.alloc('f32', w * h);
        await dev.launch(mod.kernels.transpose!, { grid: { x: Math.ceil(w / 32), y: Math.ceil(h / 32) }, block: { x: 32, y: 8 } }, [o, inp, w, h]);
        const t = await o.read();
        for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) expect(t[x * h + y]).toBe(m[y * w + x]);
      });
    }

    for (const n of [1, 1000, 54_321]) {
      it(`countModules over ${n} digis (sorted moduleStart, clusterId = i)`, async () => {
        const r = rng(n);
        const ids = new Uint16Array(n);
        let m = 0;
        for (let i = 0; i < n; i++) { if (r() < 0.02) m++; ids[i] = r() < 0.02 ? 65534 : m; }  // ≈ 1100 modules < nMaxModules
        const id = await dev.upload('u16', ids);
        const starts = dev.alloc('u32', 2000); await starts.fill(0);
        const cl = dev.alloc('i32', n);
        await dev.launch(mod.kernels.countModules!, { grid: 9, block: 64 }, [id, starts, cl, n, 1999]);
        const ref: number[] = [];
        let prev = -1;
        for (let i = 0; i < n; i++) { if (ids[i] === 65534) continue; if (prev < 0 || ids[prev] !== ids[i]) ref.push(i); prev = i; }
        const s = await starts.read();
        expect(s[0]).toBe(ref.length);
        expect(Array.from(s.subarray(1, 1 + ref.length)).sort((x, y) => x - y)).toEqual(ref);
        expect(Array.from(await cl.read())).toEqual(Array.from({ length: n }, (_, i) => i));
      });
    }
  });
}
