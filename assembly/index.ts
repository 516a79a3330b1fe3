// The kernels module: everything exported here is visible to the host. Kernels are plain
// exported functions whose parameters are device pointers (usize) and scalars; the host's
// kernel declarations (src/kernels/) name their element types.
export { __setScratch, __scratchBytes, __launch, __block, __currentBlock } from "./runtime";
export { vecMax, vecMin, vecSum } from "./kernels/reduce";
export { countModules } from "./kernels/countModules";
export {
  emptyKernel, writeIndices, trapInBlock, divide, readAddress, writeAddress, spin, atomicProbe, warpProbe,
  blockPredicateProbe, neighbourSum, orderProbe,
} from "./kernels/testKernels";
export * from "./kernels/pet/index";
export * from "./kernels/sts/index";
export * from "./kernels/pixel/index";
export * from "./kernels/race/index";
