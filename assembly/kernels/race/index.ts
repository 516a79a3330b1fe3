// race kernels: re-exported by assembly/index.ts.
