// The workbench's gallery: the example kernels of examples/kernels (the files themselves, as
// Vite raw imports) with a small job each — sizes kept small, since explore and racecheck run
// every thread on the host (about a microsecond per access).
import histogram from '../../examples/kernels/histogram.ts?raw';
import transpose from '../../examples/kernels/transpose.ts?raw';
import shuffleSum from '../../examples/kernels/shuffleSum.ts?raw';
import vecMax from '../../kernels/reduce/vecMax.ts?raw';
import countModules from '../../kernels/pixel/countModules.ts?raw';
import blockScan from '../../examples/kernels/blockScan.ts?raw';

export interface GalleryEntry { id: string; title: string; path: string; kernel: string; job: string }

const job = (body: string): string => `// The job: buffers (inputs from gen.ints / gen.floats / gen.ramp / gen.constant), launches,
// outputs, and reference(inputs): the expected outputs, computed in JS. As it is, a job file for
// \`simt racecheck --module <kernel>.ts --job job.js\` (the download adds gen's definitions).
export default (module) => (${body.trim()});
`;

export const GALLERY: GalleryEntry[] = [
  {
    id: 'histogram', title: 'histogram (256 bins, shared atomics)', path: 'histogram.ts', kernel: histogram, job: job(`{
  name: 'histogram', module,
  buffers: { data: ['u8', gen.ints(2000, 0, 255, 1)], bins: ['u32', 256] },
  launches: [{ kernel: 'histogram256', grid: 2, block: 64, args: { data: 'data', n: 2000, bins: 'bins' } }],
  outputs: ['bins'],
  reference: ({ data }) => { const bins = new Uint32Array(256); for (const v of data) bins[v]++; return { bins }; },
}`),
  },
  {
    id: 'transpose', title: 'transpose (32×32 tiles)', path: 'transpose.ts', kernel: transpose, job: job(`{
  name: 'transpose', module,
  buffers: { out: ['f32', 40 * 24], input: ['f32', gen.ramp(40 * 24)] },
  launches: [{ kernel: 'transpose', grid: { x: 2, y: 1 }, block: { x: 32, y: 8 }, args: { out: 'out', input: 'input', width: 40, height: 24 } }],
  outputs: ['out'],
  reference: ({ input }) => {
    const out = new Float32Array(40 * 24);
    for (let y = 0; y < 24; y++) for (let x = 0; x < 40; x++) out[x * 24 + y] = input[y * 40 + x];
    return { out };
  },
}`),
  },
  {
    id: 'shuffleSum', title: 'shuffleSum (warp shuffles)', path: 'shuffleSum.ts', kernel: shuffleSum, job: job(`{
  name: 'shuffleSum', module,
  buffers: { input: ['f32', gen.ints(1000, 0, 9, 2)], out: ['f32', 1] },
  launches: [{ kernel: 'shuffleSum', grid: 2, block: 64, args: { input: 'input', out: 'out', n: 1000 } }],
  outputs: ['out'],
  reference: ({ input }) => ({ out: [input.reduce((a, b) => a + b, 0)] }),
}`),
  },
  {
    id: 'vecMax', title: 'vecMax (seed 002)', path: 'vecMax.ts', kernel: vecMax, job: job(`{
  name: 'vecMax', module,
  buffers: { A: ['f32', gen.floats(1000, -100, 100, 3)], B: ['f32', 2] },
  launches: [{ kernel: 'vecMax', grid: 2, block: 64, sharedBytes: 64 * 4, args: { A: 'A', B: 'B', N: 1000 } }],
  outputs: ['B'],
  // Each block's maximum of its grid-stride slice.
  reference: ({ A }) => {
    const B = [-Infinity, -Infinity];
    for (let i = 0; i < A.length; i++) { const b = Math.floor(i / 64) % 2; B[b] = Math.max(B[b], A[i]); }
    return { B };
  },
}`),
  },
  {
    id: 'countModules', title: 'countModules (seed 000)', path: 'countModules.ts', kernel: countModules, job: job(`{
  name: 'countModules', module,
  // Sorted module ids with runs of equal ids (as CMS digis come).
  buffers: { id: ['u16', gen.ramp(600).map((i) => Math.floor(i / 7))], moduleStart: ['u32', 101], clusterId: ['i32', 600] },
  launches: [{ kernel: 'countModules', grid: 2, block: 64, args: { id: 'id', moduleStart: 'moduleStart', clusterId: 'clusterId', numElements: 600, nMaxModules: 100 } }],
  // moduleStart[1..] follows the atomics' order: only the count (moduleStart[0]) and clusterId are checked.
  outputs: ['clusterId'],
  reference: ({ id }) => ({ clusterId: Array.from(id, (_, i) => i) }),
}`),
  },
  {
    id: 'blockScan', title: 'block scan (seed 001, with __syncwarp)', path: 'blockScan.ts', kernel: blockScan, job: scanJob(),
  },
  {
    id: 'blockScanLockstep', title: 'block scan without __syncwarp (racy: warp-sync hazard)', path: 'blockScan.ts',
    // The seed as written: its warp scan relies on lock-step lanes, which racecheck reports.
    kernel: blockScan.split('\n').filter((l) => l.trim() !== '__syncwarp();').join('\n'), job: scanJob(),
  },
];

function scanJob(): string {
  return job(`{
  name: 'blockScan', module,
  buffers: { counts: ['u32', gen.ints(96, 0, 4, 5)], out: ['u32', 96] },
  launches: [{ kernel: 'blockScan', grid: 1, block: 96, args: { counts: 'counts', out: 'out', n: 96 } }],
  outputs: ['out'],
  reference: ({ counts }) => { let s = 0; return { out: Array.from(counts, (c) => (s += c)) }; },
}`);
}

/** A kernel with a planted race, the workbench's default (and the end-to-end test's). */
export const STARTER: GalleryEntry = {
  id: 'starter', title: 'starter: a planted race', path: 'mine.ts',
  kernel: `import { threadIdx, blockIdx, blockDim } from "simt/kernel";

// Each thread adds its element to its block's total: a plain read-modify-write of one cell,
// so threads of a block overwrite each other (use atomicAdd(total, blockIdx.x, x[i])).
export function blockTotals(x: i32[], total: i32[], n: i32): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    total[blockIdx.x] += x[i];
  }
}
`,
  job: job(`{
  name: 'blockTotals', module,
  buffers: { x: ['i32', gen.constant(128, 1)], total: ['i32', 2] },
  launches: [{ kernel: 'blockTotals', grid: 2, block: 64, args: { x: 'x', total: 'total', n: 128 } }],
  outputs: ['total'],
  reference: ({ x }) => ({ total: [64, 64] }),
}`),
};
