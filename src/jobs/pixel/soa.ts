/**
 * Byte layout of CMS `SiPixelDigisCUDASOAView` (seed 003): one allocation of
 * `kMAX * roundFor128ByteAlignment(maxFedWords)` uint16 words; column `c` starts at uint16 offset
 * `StorageLocation[c] * roundFor128ByteAlignment(maxFedWords)`:
 *
 *   kCLUS = 0 (int32 clus), kPDIGI = 2 (uint32 pdigi), kRAWIDARR = 4 (uint32 rawIdArr),
 *   kADC = 6 (uint16 adc), kXX = 7 (uint16 xx), kYY = 8 (uint16 yy), kMODULEIND = 9 (uint16
 *   moduleInd), kMAX = 10.
 *
 * roundFor128ByteAlignment(size) rounds the element count up to a multiple of 64 (64 uint16 =
 * 128 bytes): `((size + 63) / 64) * 64`. A 32-bit column occupies two uint16 slots, hence the
 * steps of 2 between kCLUS, kPDIGI and kRAWIDARR. For maxFedWords = 8: round = 64, byte offsets
 * clus 0, pdigi 256, rawIdArr 512, adc 768, xx 896, yy 1024, moduleInd 1152, total 1280.
 * The store is little-endian (every CUDA device is), so a cudaMemcpy dump of the whole store
 * loads byte for byte with unpackSoa. Padding bytes are written as zero and ignored on read.
 * kMAX is not listed among the seed's values (0, 2, 4, 6, 7, 8, 9); 10 is the value in CMSSW
 * (one past kMODULEIND) and the only one consistent with the allocation size.
 */

export const StorageLocation = {
  kCLUS: 0,
  kPDIGI: 2,
  kRAWIDARR: 4,
  kADC: 6,
  kXX: 7,
  kYY: 8,
  kMODULEIND: 9,
  kMAX: 10,
} as const;

export type SoaColumn = 'clus' | 'pdigi' | 'rawIdArr' | 'adc' | 'xx' | 'yy' | 'moduleInd';

export const SOA_COLUMNS: readonly SoaColumn[] = ['clus', 'pdigi', 'rawIdArr', 'adc', 'xx', 'yy', 'moduleInd'];

const LOCATION: Record<SoaColumn, number> = {
  clus: StorageLocation.kCLUS,
  pdigi: StorageLocation.kPDIGI,
  rawIdArr: StorageLocation.kRAWIDARR,
  adc: StorageLocation.kADC,
  xx: StorageLocation.kXX,
  yy: StorageLocation.kYY,
  moduleInd: StorageLocation.kMODULEIND,
};

const ELEMENT_BYTES: Record<SoaColumn, 2 | 4> = { clus: 4, pdigi: 4, rawIdArr: 4, adc: 2, xx: 2, yy: 2, moduleInd: 2 };

export class SoaLayoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SoaLayoutError';
  }
}

/** The seed's roundFor128ByteAlignment: element count rounded up to a multiple of 64. */
export function roundFor128ByteAlignment(size: number): number {
  const mul = 128 / 2; // 128 / sizeof(uint16_t)
  return Math.floor((size + mul - 1) / mul) * mul;
}

export interface SoaLayout {
  maxFedWords: number;
  /** roundFor128ByteAlignment(maxFedWords), in uint16 words. */
  stride: number;
  /** Byte offset of each column. */
  offsets: Record<SoaColumn, number>;
  /** Bytes of the whole store: kMAX * stride * 2. */
  totalBytes: number;
}

function checkCount(name: string, n: number): void {
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0 || n > 0x7fffffff) {
    throw new SoaLayoutError(`${name} must be an integer in [0, 2^31), got ${String(n)}`);
  }
}

export function soaLayout(maxFedWords: number): SoaLayout {
  checkCount('maxFedWords', maxFedWords);
  const stride = roundFor128ByteAlignment(maxFedWords);
  const offsets = {} as Record<SoaColumn, number>;
  for (const c of SOA_COLUMNS) offsets[c] = LOCATION[c] * stride * 2;
  return { maxFedWords, stride, offsets, totalBytes: StorageLocation.kMAX * stride * 2 };
}

export interface PixelDigisSoa {
  clus: Int32Array;
  pdigi: Uint32Array;
  rawIdArr: Uint32Array;
  adc: Uint16Array;
  xx: Uint16Array;
  yy: Uint16Array;
  moduleInd: Uint16Array;
}

const CTOR = {
  clus: Int32Array,
  pdigi: Uint32Array,
  rawIdArr: Uint32Array,
  adc: Uint16Array,
  xx: Uint16Array,
  yy: Uint16Array,
  moduleInd: Uint16Array,
} as const;

/**
 * Packs the columns (each of length nDigis <= maxFedWords) into a fresh store of
 * soaLayout(maxFedWords).totalBytes bytes. maxFedWords defaults to nDigis.
 */
export function packSoa(cols: PixelDigisSoa, maxFedWords?: number): Uint8Array {
  const cap = checkColumns(cols, maxFedWords);
  const out = new Uint8Array(soaLayout(cap).totalBytes);
  packSoaInto(cols, out, cap);
  return out;
}

// Typed-array copies are the store's little-endian layout only on a little-endian host (every
// host wasm runs on, in practice); elsewhere the DataView path below still is.
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Packs the columns into `out`, a store of exactly soaLayout(maxFedWords).totalBytes bytes (a
 * device array's view, so the store is written in place), padding bytes set to zero.
 */
export function packSoaInto(cols: PixelDigisSoa, out: Uint8Array, maxFedWords?: number): void {
  const cap = checkColumns(cols, maxFedWords);
  const layout = soaLayout(cap);
  if (!(out instanceof Uint8Array) || out.length !== layout.totalBytes) {
    throw new SoaLayoutError(`store must be a Uint8Array of ${layout.totalBytes} bytes for maxFedWords = ${cap}`);
  }
  const n = cols.clus.length;
  const dv = new DataView(out.buffer, out.byteOffset, out.byteLength);
  for (const c of SOA_COLUMNS) {
    const base = layout.offsets[c];
    const a = cols[c];
    const eb = ELEMENT_BYTES[c];
    if (LITTLE_ENDIAN && (out.byteOffset + base) % eb === 0) {
      // One memcpy per column: the bytes of a[i] are the store's bytes.
      new Uint8Array(out.buffer, out.byteOffset + base, n * eb).set(new Uint8Array(a.buffer, a.byteOffset, n * eb));
    } else if (eb === 4) {
      const signed = c === 'clus';
      for (let i = 0; i < n; i++) {
        if (signed) dv.setInt32(base + 4 * i, a[i]!, true);
        else dv.setUint32(base + 4 * i, a[i]!, true);
      }
    } else {
      for (let i = 0; i < n; i++) dv.setUint16(base + 2 * i, a[i]!, true);
    }
    out.fill(0, base + n * eb, base + layout.stride * eb);
  }
}

/** Checks the columns' types and lengths; returns maxFedWords (default: their length). */
function checkColumns(cols: PixelDigisSoa, maxFedWords: number | undefined): number {
  const n = cols.clus?.length;
  for (const c of SOA_COLUMNS) {
    const a = cols[c];
    if (!(a instanceof CTOR[c])) throw new SoaLayoutError(`column ${c} must be a ${CTOR[c].name}`);
    if (a.length !== n) throw new SoaLayoutError(`column ${c} has ${a.length} elements, clus has ${n}`);
  }
  const cap = maxFedWords ?? n;
  soaLayout(cap);
  if (n > cap) throw new SoaLayoutError(`${n} digis do not fit a store for maxFedWords = ${cap}`);
  return cap;
}

/**
 * Reads nDigis (default maxFedWords) digis from a store of exactly
 * soaLayout(maxFedWords).totalBytes bytes (copies; the input may sit at any byte offset).
 */
export function unpackSoa(bytes: Uint8Array, maxFedWords: number, nDigis: number = maxFedWords): PixelDigisSoa {
  const layout = soaLayout(maxFedWords);
  checkCount('nDigis', nDigis);
  if (!(bytes instanceof Uint8Array)) throw new SoaLayoutError('store must be a Uint8Array');
  if (bytes.length !== layout.totalBytes) {
    throw new SoaLayoutError(`store has ${bytes.length} bytes, maxFedWords = ${maxFedWords} needs ${layout.totalBytes} (10 x ${layout.stride} uint16)`);
  }
  if (nDigis > maxFedWords) throw new SoaLayoutError(`nDigis ${nDigis} > maxFedWords ${maxFedWords}`);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = {} as Record<SoaColumn, Int32Array | Uint32Array | Uint16Array>;
  for (const c of SOA_COLUMNS) {
    const base = layout.offsets[c];
    if (LITTLE_ENDIAN && (bytes.byteOffset + base) % ELEMENT_BYTES[c] === 0) {
      // One memcpy per column (the store's bytes are the column's, on a little-endian host).
      const col = new CTOR[c](nDigis);
      new Uint8Array(col.buffer).set(bytes.subarray(base, base + nDigis * ELEMENT_BYTES[c]));
      out[c] = col;
    } else if (c === 'clus') {
      const a = new Int32Array(nDigis);
      for (let i = 0; i < nDigis; i++) a[i] = dv.getInt32(base + 4 * i, true);
      out[c] = a;
    } else if (ELEMENT_BYTES[c] === 4) {
      const a = new Uint32Array(nDigis);
      for (let i = 0; i < nDigis; i++) a[i] = dv.getUint32(base + 4 * i, true);
      out[c] = a;
    } else {
      const a = new Uint16Array(nDigis);
      for (let i = 0; i < nDigis; i++) a[i] = dv.getUint16(base + 2 * i, true);
      out[c] = a;
    }
  }
  return out as unknown as PixelDigisSoa;
}
