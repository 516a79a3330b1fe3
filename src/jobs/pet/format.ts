/**
 * The PET scanner's raw 16-byte frame, `DataFrameV2`, byte for byte as the seed declares it:
 *
 * | byte  | field                 | type      | meaning                                                      |
 * |-------|-----------------------|-----------|--------------------------------------------------------------|
 * | 0     | `nHeadAndDU`          | uint8     | low nibble: local DU (detector unit) index inside the BDM;   |
 * |       |                       |           | high nibble: frame-header bits (the pipeline ignores them)   |
 * | 1     | `nBDM`                | uint8     | global BDM (block detector module) index                     |
 * | 2..9  | `nTime[8]`            | uint8[8]  | 64-bit time counter, big-endian (`nTime[0]` most significant)|
 * | 10    | `x`                   | uint8     | position-spectrum (flood map) x coordinate                   |
 * | 11    | `y`                   | uint8     | position-spectrum y coordinate                               |
 * | 12..13| `Energy[2]`           | uint8[2]  | raw energy, big-endian (`Energy[0] << 8 \| Energy[1]`)       |
 * | 14    | `nTemperatureInt`     | int8      | temperature, integer part (°C)                               |
 * | 15    | `nTemperatureAndTail` | uint8     | temperature fraction and frame tail bits (opaque)            |
 *
 * Guesses (the seed shows only the struct and how the kernel reads it):
 * - the DU index is the low nibble because the kernel reads `nHeadAndDU & 0x0F`; the high
 *   nibble is therefore taken to be header bits, and nothing reads it;
 * - the time and energy byte order is big-endian because the kernel assembles them with
 *   `t = nTime[0]; t = (t << 8) | nTime[i]` and `Energy[0] << 8 | Energy[1]`;
 * - the split of `nTemperatureAndTail` into temperature fraction and tail is unknown; the byte is
 *   carried through unchanged and never interpreted.
 */

export const FRAME_BYTES = 16;

/** One decoded frame. `time` is the full unsigned 64-bit counter. */
export interface DataFrameV2 {
  /** `nHeadAndDU` byte (DU index in the low nibble). */
  headAndDU: number;
  /** `nBDM`. */
  bdm: number;
  /** `nTime`, 0 <= time < 2^64. */
  time: bigint;
  x: number;
  y: number;
  /** Raw energy, 0..65535. */
  energy: number;
  /** `nTemperatureInt`, -128..127. */
  temperatureInt: number;
  /** `nTemperatureAndTail`, 0..255. */
  temperatureAndTail: number;
}

export class TruncatedFrameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TruncatedFrameError';
  }
}

export class FrameFieldError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FrameFieldError';
  }
}

/** Byte offsets of the fields inside a frame. */
export const FRAME_OFFSETS = {
  headAndDU: 0,
  bdm: 1,
  time: 2,
  x: 10,
  y: 11,
  energy: 12,
  temperatureInt: 14,
  temperatureAndTail: 15,
} as const;

/** DU index as the kernel reads it: `nHeadAndDU & 0x0F`. */
export function duOf(headAndDU: number): number {
  return headAndDU & 0x0f;
}

/** Number of whole frames in a buffer; throws TruncatedFrameError if the length is not a multiple of 16. */
export function frameCount(bytes: { readonly length: number }): number {
  if (bytes.length % FRAME_BYTES !== 0) {
    throw new TruncatedFrameError(
      `frame buffer length ${bytes.length} is not a multiple of ${FRAME_BYTES} bytes ` +
        `(${bytes.length % FRAME_BYTES} trailing bytes after ${Math.floor(bytes.length / FRAME_BYTES)} whole frames)`,
    );
  }
  return bytes.length / FRAME_BYTES;
}

function checkByte(name: string, v: number, i: number, lo = 0, hi = 255): void {
  if (!Number.isInteger(v) || v < lo || v > hi) {
    throw new FrameFieldError(`frame ${i}: field ${name} = ${v} is outside ${lo}..${hi}`);
  }
}

/** Writes one frame at frame index `i` of `out` (no allocation). */
export function writeFrame(out: Uint8Array, i: number, f: DataFrameV2): void {
  checkByte('headAndDU', f.headAndDU, i);
  checkByte('bdm', f.bdm, i);
  checkByte('x', f.x, i);
  checkByte('y', f.y, i);
  checkByte('energy', f.energy, i, 0, 0xffff);
  checkByte('temperatureInt', f.temperatureInt, i, -128, 127);
  checkByte('temperatureAndTail', f.temperatureAndTail, i);
  if (typeof f.time !== 'bigint' || f.time < 0n || f.time > 0xffffffffffffffffn) {
    throw new FrameFieldError(`frame ${i}: field time = ${String(f.time)} is not an unsigned 64-bit integer`);
  }
  const o = i * FRAME_BYTES;
  out[o] = f.headAndDU;
  out[o + 1] = f.bdm;
  let t = f.time;
  for (let k = 7; k >= 0; k--) {
    out[o + 2 + k] = Number(t & 0xffn);
    t >>= 8n;
  }
  out[o + 10] = f.x;
  out[o + 11] = f.y;
  out[o + 12] = (f.energy >>> 8) & 0xff;
  out[o + 13] = f.energy & 0xff;
  out[o + 14] = f.temperatureInt & 0xff;
  out[o + 15] = f.temperatureAndTail;
}

/** Encodes frames into a contiguous `frames.length * 16`-byte buffer. */
export function encodeFrames(frames: readonly DataFrameV2[]): Uint8Array {
  const out = new Uint8Array(frames.length * FRAME_BYTES);
  for (let i = 0; i < frames.length; i++) writeFrame(out, i, frames[i]!);
  return out;
}

/** Decodes frame `i`. Throws TruncatedFrameError on a ragged buffer, RangeError on a bad index. */
export function decodeFrame(bytes: Uint8Array, i: number): DataFrameV2 {
  const n = frameCount(bytes);
  if (!Number.isInteger(i) || i < 0 || i >= n) {
    throw new RangeError(`frame index ${i} is outside 0..${n - 1}`);
  }
  const o = i * FRAME_BYTES;
  let t = 0n;
  for (let k = 0; k < 8; k++) t = (t << 8n) | BigInt(bytes[o + 2 + k]!);
  const ti = bytes[o + 14]!;
  return {
    headAndDU: bytes[o]!,
    bdm: bytes[o + 1]!,
    time: t,
    x: bytes[o + 10]!,
    y: bytes[o + 11]!,
    energy: (bytes[o + 12]! << 8) | bytes[o + 13]!,
    temperatureInt: ti >= 128 ? ti - 256 : ti,
    temperatureAndTail: bytes[o + 15]!,
  };
}

/** Decodes every frame. */
export function decodeFrames(bytes: Uint8Array): DataFrameV2[] {
  const n = frameCount(bytes);
  const out: DataFrameV2[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = decodeFrame(bytes, i);
  return out;
}

/**
 * The time counter of frame `i` converted as the kernel does (`(double)nTimeTemp`): a JS number,
 * exact below 2^53 and rounded to nearest above (the same rounding as the CUDA u64 -> double cast).
 */
export function frameTimeAsDouble(bytes: Uint8Array, i: number): number {
  const o = i * FRAME_BYTES + 2;
  const hi = ((bytes[o]! << 24) | (bytes[o + 1]! << 16) | (bytes[o + 2]! << 8) | bytes[o + 3]!) >>> 0;
  const lo = ((bytes[o + 4]! << 24) | (bytes[o + 5]! << 16) | (bytes[o + 6]! << 8) | bytes[o + 7]!) >>> 0;
  if (hi < 0x200000) return hi * 4294967296 + lo; // < 2^53: exact
  // Above 2^53 hi*2^32 + lo would round twice; go through BigInt for a single correct rounding.
  return Number((BigInt(hi) << 32n) | BigInt(lo));
}
