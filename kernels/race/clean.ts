// The race corpus's race-free kernels (src/race/corpus.ts says what each one checks): every
// conflicting pair of accesses is ordered by a barrier, __syncwarp, an atomic or a kernel boundary.
import { atomicAdd } from "simt/kernel";

/** Every thread of the grid adds 1 to counter[0] with atomicAdd. */
export function atomicCounter(counter: i32[]): void {
  atomicAdd(counter, 0, 1);
}
