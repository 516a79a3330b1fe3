// Type-level test of launch arguments (compiled with `tsc --noEmit` by test/launch-types.test.ts;
// never run). Each `@ts-expect-error` line must be an error: if one compiles, tsc reports the
// directive as unused and the test fails.
import { createDevice, defineKernel, kernels, type KernelModule } from '../../src/index.js';

const dev = await createDevice({ workers: 1 });
const A = dev.alloc('f32', 16);
const B = dev.alloc('f32', 1);
const bytes = dev.alloc('u8', 16);
const cfg = { grid: 1, block: 16, sharedBytes: 64 };

// vecMax: { A: 'f32[]', B: 'f32[]', N: 'i32' }
await dev.launch(kernels.vecMax, cfg, [A, B, 16]);
await dev.launch(kernels.vecMax, cfg, { A, B, N: 16 });
// @ts-expect-error a wrong dtype: u8[] where f32[] is declared (by name)
await dev.launch(kernels.vecMax, cfg, { A: bytes, B, N: 16 });
// @ts-expect-error a wrong dtype: u8[] where only f32[] and i32 are declared (in order)
await dev.launch(kernels.vecMax, cfg, [bytes, B, 16]);
// @ts-expect-error a missing argument (by name)
await dev.launch(kernels.vecMax, cfg, { A, B });
// @ts-expect-error a missing argument (in order)
await dev.launch(kernels.vecMax, cfg, [A, B]);
// @ts-expect-error a bogus argument (by name)
await dev.launch(kernels.vecMax, cfg, { A, B, N: 16, M: 3 });
// @ts-expect-error one argument too many (in order)
await dev.launch(kernels.vecMax, cfg, [A, B, 16, 3]);
// @ts-expect-error a string where a number is declared
await dev.launch(kernels.vecMax, cfg, { A, B, N: '16' });
// @ts-expect-error no arguments for a kernel with parameters
await dev.launch(kernels.vecMax, cfg);

// A kernel without parameters needs none.
await dev.launch(kernels.emptyKernel, { grid: 1, block: 1 });

// A kernel declared in user code.
const scale = defineKernel('scale', { x: 'f64[]', k: 'f64', n: 'i64' });
const X = dev.alloc('f64', 4);
await dev.launch(scale, cfg, { x: X, k: 2.5, n: 4n });
await dev.launch(scale, cfg, { x: X, k: 2.5, n: 4 });
// @ts-expect-error a bigint where an f64 is declared
await dev.launch(scale, cfg, { x: X, k: 2n, n: 4 });

// A module as `simt build` declares it in <name>.d.ts.
declare const mod: KernelModule<{ histogram256: { data: 'u8[]'; bins: 'u32[]'; n: 'i32' } }>;
const bins = dev.alloc('u32', 256);
await dev.launch(mod.kernels.histogram256, cfg, { data: bytes, bins, n: 16 });
await dev.launch(mod.kernels.histogram256, cfg, [bytes, bins, 16]);
// @ts-expect-error bins is u32[], not f32[]
await dev.launch(mod.kernels.histogram256, cfg, { data: bytes, bins: A, n: 16 });
// @ts-expect-error a kernel the module does not have
mod.kernels.histogram;

// A kernel whose spec is not known statically takes any arguments (checked when it runs).
const loose: KernelModule = mod;
await dev.launch(loose.kernels['anything']!, cfg, [A, 1, 2, 3]);
