// The pixel store as a file. The store itself is the SoA image a CUDA dump of
// SiPixelDigisCUDASOAView gives (soa.ts): 20 · roundFor128ByteAlignment(maxFedWords) bytes. It
// does not say how many digis it holds — the rounding pads it with zero digis, which look like
// valid digis of module 0 at pixel (0, 0) — so a reader that took its size for its count
// clustered the padding too. The file simt writes is that image followed by a 16-byte trailer
// carrying both counts; the image is untouched, so its first bytes still compare byte for byte
// with a CUDA dump. A raw dump (no trailer) is read only with its counts given.

import { PixelInputError } from './constants.js';
import { soaLayout } from './soa.js';

const MAGIC = 'simtPXS1';
export const STORE_TRAILER_BYTES = 16;

/** The store image, then MAGIC, u32 n, u32 maxFedWords (little-endian). */
export function encodePixelStoreFile(store: Uint8Array, n: number, maxFedWords: number): Uint8Array {
  if (store.length !== soaLayout(maxFedWords).totalBytes || !Number.isInteger(n) || n < 0 || n > maxFedWords) {
    throw new PixelInputError(`internal: a store of ${store.length} bytes with ${n} of ${maxFedWords} digis`);
  }
  const out = new Uint8Array(store.length + STORE_TRAILER_BYTES);
  out.set(store);
  const dv = new DataView(out.buffer, store.length);
  for (let k = 0; k < MAGIC.length; k++) dv.setUint8(k, MAGIC.charCodeAt(k));
  dv.setUint32(8, n, true);
  dv.setUint32(12, maxFedWords, true);
  return out;
}

/** Whether `file` ends with simt's store trailer (so it says its own digi count). */
export function hasStoreTrailer(file: Uint8Array): boolean {
  const t = file.length - STORE_TRAILER_BYTES;
  return t >= 0 && MAGIC.split('').every((ch, k) => file[t + k] === ch.charCodeAt(0));
}

export interface PixelStoreFile { bytes: Uint8Array; maxFedWords: number; n: number; trailer: boolean }

/** What the caller says about a store: both optional; a raw dump needs at least one. */
export interface PixelStoreCounts { maxFedWords?: number; n?: number }

/**
 * Reads a store file: with a trailer its counts come from it (a given `n` may only be smaller,
 * a given `maxFedWords` must match); without one, `maxFedWords` (default: the size's rounding)
 * and `n` (default maxFedWords) must be given, at least one of them. Errors name `name`.
 */
export function decodePixelStoreFile(file: Uint8Array, given: PixelStoreCounts, name: string): PixelStoreFile {
  const t = file.length - STORE_TRAILER_BYTES;
  if (hasStoreTrailer(file)) {
    const dv = new DataView(file.buffer, file.byteOffset + t, STORE_TRAILER_BYTES);
    const n = dv.getUint32(8, true);
    const maxFedWords = dv.getUint32(12, true);
    if (maxFedWords > 0x7fffffff || n > maxFedWords || soaLayout(maxFedWords).totalBytes !== t) {
      throw new PixelInputError(`${name}: damaged store trailer (${n} digis, maxFedWords ${maxFedWords}, ${t} bytes of store)`);
    }
    if (given.maxFedWords !== undefined && given.maxFedWords !== maxFedWords) {
      throw new PixelInputError(`${name}: the store says maxFedWords ${maxFedWords}, --max-fed-words says ${given.maxFedWords}`);
    }
    if (given.n !== undefined && given.n > n) throw new PixelInputError(`${name}: --n ${given.n} is more than the ${n} digis the store holds`);
    return { bytes: file.subarray(0, t), maxFedWords, n: given.n ?? n, trailer: true };
  }
  if (given.maxFedWords === undefined && given.n === undefined) {
    throw new PixelInputError(`${name}: a raw store dump does not say how many digis it holds (its size includes ` +
      'alignment padding): give --n N, or --max-fed-words M when all M words are digis');
  }
  const maxFedWords = given.maxFedWords ?? file.length / 20;
  if (!Number.isInteger(maxFedWords) || soaLayout(maxFedWords).totalBytes !== file.length) {
    throw new PixelInputError(`${name}: ${file.length} bytes is not a store for maxFedWords ${maxFedWords} (needs 20 × roundFor128ByteAlignment(M) bytes)`);
  }
  const n = given.n ?? maxFedWords;
  if (n > maxFedWords) throw new PixelInputError(`${name}: --n ${n} is more than maxFedWords ${maxFedWords}`);
  return { bytes: file, maxFedWords, n, trailer: false };
}
