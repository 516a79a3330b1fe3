// Host declarations of the pet kernels (assembly/kernels/pet/).
export {};
