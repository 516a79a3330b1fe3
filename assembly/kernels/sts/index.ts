// sts kernels (seed 004): re-exported by assembly/index.ts. The hand-written specializations of
// kernels/sts/ (per thread); stsCountChunks, stsLocalOffsets, stsHalveRuns and stsTileStarts run as compiled.
export {
  stsCountChannels, stsScatterAtomic, stsScatterChunks, stsLocalSort,
  stsColumnOffsets, stsLocalMerge, stsCheckChannels,
} from "./countingSort";
export {
  stsRunFlags, stsRunStarts, stsMergeDigis, stsMergeKeys, stsDigisToKeys, stsKeysToDigis, stsTileSort,
} from "./mergeSort";
