// WebAssembly's JS API types as simt's public declarations use them. TypeScript declares the
// `WebAssembly` namespace only in its DOM and WebWorker libs, so a Node project type-checking
// simt's .d.ts with `"lib": ["ES2022"]` (no DOM) would not find `WebAssembly.Memory`. The empty
// interfaces below make the names exist everywhere: without DOM they are opaque; with it they
// merge with the full declarations and change nothing.
declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace WebAssembly {
    // eslint-disable-next-line @typescript-eslint/no-empty-object-type
    interface Memory {}
    // eslint-disable-next-line @typescript-eslint/no-empty-object-type
    interface Module {}
  }
}

/** A device's memory: a shared `WebAssembly.Memory`. */
export type WasmMemory = WebAssembly.Memory;
