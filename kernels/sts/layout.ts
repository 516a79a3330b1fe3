// CBM STS digis between their two layouts: two arrays {channel, time} (how a reader hands them
// over, and how the job returns them) and one u32[2n] of (channel, time) words (the sorts'
// device layout, the native baseline's struct). Grid-stride copies that run on every worker, so
// a job whose digis live in device memory converts them there instead of on one host thread.
import { threadIdx, blockIdx, blockDim, gridDim } from "simt/kernel";

/** digis[2i] = channel[i], digis[2i + 1] = time[i]. */
export function stsInterleaveDigis(channel: u32[], time: u32[], digis: u32[], n: i32): void {
  for (let i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    digis[2 * i] = channel[i];
    digis[2 * i + 1] = time[i];
  }
}

/** channel[i] = digis[2i], time[i] = digis[2i + 1]. */
export function stsSplitDigis(digis: u32[], channel: u32[], time: u32[], n: i32): void {
  for (let i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    channel[i] = digis[2 * i];
    time[i] = digis[2 * i + 1];
  }
}
