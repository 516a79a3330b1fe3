// pet kernels (seed 001): re-exported by assembly/index.ts. See docs/pet.md.
export { petCrystalLut, petConvert } from "./convert";
export { petSplitSingles, petSplitPairs } from "./singles";
export { petPadSingles, petSortTiles, petMergeRanks, petMergeBlocks, petMergeLevels } from "./sort";
export { petCoinNextIndex, petCoinSelect, petCoinCount, fillDataDivergent, petCoinFill } from "./coincidence";
