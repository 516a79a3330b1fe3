// What Binaryen does to the compiler's wasm after asc, in one place: -O3 of the block and screen
// forms, asyncify of the fine-grained form. The compiler runs these in its own process or in the
// optimizer process (optimizerProcess.ts), and both must give the same bytes: each sets every
// Binaryen option it depends on (they are global to a Binaryen instance, and the one that ran
// last would otherwise leave its own).

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
    setOptions(binaryen, 3);
    m.optimize();
    return m.emitBinary();
  } finally {
    m.dispose();
  }
}

/**
 * Asyncify of the fine-grained form: every function that can reach a scheduling point can unwind
 * and rewind a thread (the race tools suspend a thread there), then Binaryen's -O2 with the
 * options of -O3 above (those the fine form was built with whenever the block form had been
 * optimised before it in the same process).
 */
export function asyncifyForRaceTools(binaryen: Binaryen, binary: Uint8Array): Uint8Array {
  const m = binaryen.readBinary(binary);
  try {
    setAscFeatures(binaryen, m);
    setOptions(binaryen, 2);
    binaryen.setPassArgument('asyncify-imports', 'simt.accessAt,simt.barrier,simt.fence');
    m.runPasses(['asyncify']);
    m.optimize();
    return m.emitBinary();
  } finally {
    binaryen.clearPassArguments();
    m.dispose();
  }
}

/** The optimisation options: level, no shrinking, fast math, asc's -O3 inlining limits. */
function setOptions(binaryen: Binaryen, level: number): void {
  binaryen.setOptimizeLevel(level);
  binaryen.setShrinkLevel(0);
  binaryen.setFastMath(true);
  binaryen.setAlwaysInlineMaxSize(12);
  binaryen.setFlexibleInlineMaxSize(70);
  binaryen.setOneCallerInlineMaxSize(200);
  binaryen.setAllowInliningFunctionsWithLoops(true);
}
