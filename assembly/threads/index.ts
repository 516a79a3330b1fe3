// The thread-kernels module (build/threads.wasm): per-thread CUDA-style kernels run by the
// host's fine-grained scheduler (src/race/). See docs/race-tools.md.
export { __setLaunch, __setThread } from "./runtime";
export * from "./seeds";
export * from "./racy";
export * from "./clean";
