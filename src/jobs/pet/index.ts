// The PET job of seed 001: the pipeline (run.ts), and the shared format, geometry, reference
// and generator it is checked against.
export { runPet, sortSinglesByTime, validatePetInputs, petMemoryBytes, PetOptionsError } from './run.js';
export type { PetRunOptions, PetRunResult, PetSingles, PetTables, PetTimings } from './run.js';
export * from './format.js';
export * from './geometry.js';
export * from './reference.js';
export * from './generate.js';
