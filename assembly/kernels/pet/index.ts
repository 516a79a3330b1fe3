// pet kernels (seed 001): re-exported by assembly/index.ts. See docs/pet.md. petCrystalLut and
// petPadSingles are only the generic kernels of kernels/pet/ (simt's shipped module).
export { petConvert } from "./convert";
export { petSplitSingles, petSplitPairs } from "./singles";
export { petSortTiles, petMergeRanks, petMergeBlocks, petMergeLevels } from "./sort";
export { petCoinNextIndex, petCoinSelect, petCoinCount, petCoinFill } from "./coincidence";
