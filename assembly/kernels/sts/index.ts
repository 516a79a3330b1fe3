// sts kernels (seed 004): re-exported by assembly/index.ts.
export {
  stsCountChannels, stsScatterAtomic, stsCountChunks, stsScatterChunks, stsLocalOffsets, stsLocalSort,
  stsColumnOffsets, stsLocalMerge, stsCheckChannels,
} from "./countingSort";
export {
  stsRunFlags, stsRunStarts, stsHalveRuns, stsMergeDigis, stsMergeKeys, stsDigisToKeys, stsKeysToDigis, stsTileSort, stsTileStarts,
} from "./mergeSort";
