// The kernels simt ships, declared once. Each name is an AssemblyScript export in
// assembly/index.ts; the parameter order is the AS function's.
//
// The hand-written SIMD kernels that have a generic form — the same CUDA kernel written per
// thread under kernels/, built into the shipped module — declare it (`specializes`): they must
// give the same bytes (test/specializations.test.ts) and pay for themselves (the
// `specializations` bench suite; one under 1.3× its generic goes).
import { defineKernel, sharedTreeRequirement, type Kernel } from '../kernel.js';
import * as pet from './pet.js';
import * as sts from './sts.js';
import * as pixel from './pixel.js';
import * as race from './race.js';
import * as primitives from './primitives.js';

/** Seed 002: B[blockIdx.x] = max over the block's grid-stride slice of A[0..N). Shared: 4·blockDim.x bytes. */
export const vecMax = defineKernel('vecMax', { A: 'f32[]', B: 'f32[]', N: 'i32' }, { requires: sharedTreeRequirement(4), specializes: { generic: 'vecMax' } });
/** As vecMax, with min. */
export const vecMin = defineKernel('vecMin', { A: 'f32[]', B: 'f32[]', N: 'i32' }, { requires: sharedTreeRequirement(4), specializes: { generic: 'vecMin' } });
/** f64-accumulated sum of f32: B[blockIdx.x] = the block's partial (f64). Shared: 8·blockDim.x bytes. */
export const vecSum = defineKernel('vecSum', { A: 'f32[]', B: 'f64[]', N: 'i32' }, { requires: sharedTreeRequirement(8), specializes: { generic: 'vecSum', anyNaN: ['B'] } });
/**
 * Seed 000: CMS pixel countModules. moduleStart[1..] holds the boundaries in the order threads
 * reached atomicInc: order free (moduleStart[0], the count, is exact). A multiset only while the
 * count does not wrap past nMaxModules + 1: beyond that later starts overwrite earlier slots in
 * schedule order, on a GPU too.
 */
export const countModules = defineKernel('countModules', {
  id: 'u16[]', moduleStart: 'u32[]', clusterId: 'i32[]', numElements: 'i32', nMaxModules: 'u32',
}, { specializes: { generic: 'countModules', orderFree: [{ param: 'moduleStart', from: 1 }] } });

/** Runtime probes used by the tests and benchmarks. */
export const emptyKernel = defineKernel('emptyKernel', {});
export const writeIndices = defineKernel('writeIndices', { out: 'i32[]' });
export const trapInBlock = defineKernel('trapInBlock', { counter: 'i32[]', badBlock: 'i32' });
export const divide = defineKernel('divide', { a: 'i32[]', b: 'i32[]', out: 'i32[]', n: 'i32' });
export const readAddress = defineKernel('readAddress', { addr: 'u32', out: 'i32[]' });
export const writeAddress = defineKernel('writeAddress', { addr: 'u32', value: 'i32' });
export const spin = defineKernel('spin', { iterations: 'i32', out: 'i32[]' });
export const atomicProbe = defineKernel('atomicProbe', {
  op: 'i32', target: 'u8[]', operands: 'u8[]', operands2: 'u8[]', olds: 'u8[]', n: 'i32',
});
export const warpProbe = defineKernel('warpProbe', {
  op: 'i32', arg: 'i32', width: 'i32', mask: 'u32', vals: 'i32[]', aux: 'i32[]', out: 'i32[]',
});
export const blockPredicateProbe = defineKernel('blockPredicateProbe', { preds: 'i32[]', out: 'i32[]' });
export const neighbourSum = defineKernel('neighbourSum', { input: 'i32[]', out: 'i32[]', n: 'i32' }, {
  requires: ({ block, sharedBytes }) => (sharedBytes < 4 * block.x * block.y * block.z ? `needs 4 shared bytes per thread, got ${sharedBytes}` : undefined),
});
export const orderProbe = defineKernel('orderProbe', { log: 'u32[]', n: 'i32' });

export const builtinKernels = {
  vecMax, vecMin, vecSum, countModules, emptyKernel, writeIndices, trapInBlock, divide, readAddress, writeAddress, spin,
  atomicProbe, warpProbe, blockPredicateProbe, neighbourSum, orderProbe,
};

export { pet, sts, pixel, race, primitives };

/** Every hand-written kernel declared here: builtinKernels and the namespaces' kernels, once each. */
export function handWrittenKernels(): Kernel[] {
  const isKernel = (x: unknown): x is Kernel => typeof x === 'object' && x !== null && typeof (x as Kernel).name === 'string' && Array.isArray((x as Kernel).params);
  return [...new Set([builtinKernels, pet, sts, pixel, race, primitives].flatMap((ns) => Object.values(ns).filter(isKernel)))];
}

/** The hand-written kernels that are declared specializations of a generic kernel (`specializes`). */
export function specializations(): Kernel[] {
  return handWrittenKernels().filter((k) => k.specializes !== undefined);
}
