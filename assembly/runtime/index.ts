// The simt device runtime: what a kernel imports. See docs/kernels.md for how to write one.
export * from "./dims";
export * from "./scratch";
export * from "./schedule";
export * from "./atomics";
export * from "./warp";
export * from "./block";
export * from "./launch";
