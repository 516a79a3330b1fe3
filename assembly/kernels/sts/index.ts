// sts kernels: re-exported by assembly/index.ts.
