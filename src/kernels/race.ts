// Host declarations of the race kernels (assembly/kernels/race/).
export {};
