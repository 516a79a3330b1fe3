// Host declarations of the pixel kernels (assembly/kernels/pixel/).
export {};
