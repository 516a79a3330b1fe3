// Host declarations of the sts kernels (assembly/kernels/sts/).
export {};
