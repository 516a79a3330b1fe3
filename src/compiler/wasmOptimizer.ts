// Binaryen's -O3 of the block and screen forms, in one place: the compiler runs it in its own
// process or in the optimizer process (optimizerProcess.ts), and both must give the same bytes.

import type BinaryenDefault from 'binaryen';

export type Binaryen = typeof BinaryenDefault;

/**
 * The wasm features asc compiles for (wasm 2.0 + threads + SIMD), given to Binaryen when it reads
 * a module back: not `All`, with which Binaryen writes newer encodings (compact import sections)
 * that engines reject.
 */
export function setAscFeatures(binaryen: Binaryen, m: InstanceType<Binaryen['Module']>): void {
  const F = binaryen.Features;
  m.setFeatures(F.MVP | F.Atomics | F.MutableGlobals | F.NontrappingFPToInt | F.SIMD128 | F.BulkMemory | F.BulkMemoryOpt | F.SignExt);
}

/**
 * Binaryen's own -O3 pipeline, with the inlining limits asc's -O3 sets. asc's -O3 is a longer
 * pipeline (simplify-globals-optimizing alone runs ten times, besides flatten and GUFA rounds):
 * warm, it spent 0.43-0.52 s optimising vecMax, this one 0.22-0.26 s, and the five user kernels
 * run as fast from either (bench/RESULTS.md, "Compile time"). Binaryen's -O2 is not enough:
 * transpose and countModules ran 1.5-1.7x slower from it.
 */
export function optimizeO3(binaryen: Binaryen, binary: Uint8Array): Uint8Array {
  const m = binaryen.readBinary(binary);
  try {
    setAscFeatures(binaryen, m);
    binaryen.setOptimizeLevel(3);
    binaryen.setShrinkLevel(0);
    binaryen.setFastMath(true);
    binaryen.setAlwaysInlineMaxSize(12);
    binaryen.setFlexibleInlineMaxSize(70);
    binaryen.setOneCallerInlineMaxSize(200);
    binaryen.setAllowInliningFunctionsWithLoops(true);
    m.optimize();
    return m.emitBinary();
  } finally {
    m.dispose();
  }
}
