// The module's entry: the kernels and the runtime hooks (index.ts) plus the generated block
// loops (generated/blockLoops.ts, written by scripts/build-wasm.mjs).
export * from "./index";
export * from "./generated/blockLoops";
