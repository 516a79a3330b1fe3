/**
 * NumPy `.npy` files, format versions 1.0 and 2.0 (3.0 is read too: same as 2.0 with a UTF-8
 * header). Supported: little-endian (or byte-order-free one-byte) dtypes u1 i1 u2 i2 u4 i4 u8 i8
 * f4 f8, C order, 1-D and 2-D shapes.
 *
 * Layout: "\x93NUMPY", major, minor, header length (uint16 LE for 1.0, uint32 LE for 2.0/3.0),
 * then a Python dict literal {'descr': '<u4', 'fortran_order': False, 'shape': (3,), } padded
 * with spaces and ended by '\n' so that the data starts at a multiple of 64 bytes, then the raw
 * array data in C order.
 */

import { dtypeOfArray, type DType } from '../dtypes.js';
import { pinErrorNames, SimtError } from '../errors.js';

/** Bytes that are not an .npy file simt reads, or an array of another shape than expected. */
export class NpyFormatError extends SimtError {}
pinErrorNames({ NpyFormatError });

export type NpyDtype = 'u1' | 'i1' | 'u2' | 'i2' | 'u4' | 'i4' | 'u8' | 'i8' | 'f4' | 'f8';

export type NpyData =
  | Uint8Array
  | Int8Array
  | Uint16Array
  | Int16Array
  | Uint32Array
  | Int32Array
  | BigUint64Array
  | BigInt64Array
  | Float32Array
  | Float64Array;

export interface NpyArray {
  dtype: NpyDtype;
  /** [n] or [rows, cols]. */
  shape: number[];
  /** Flat data in C (row-major) order. */
  data: NpyData;
}

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY

const DTYPES: Record<NpyDtype, { bytes: number; ctor: new (n: number) => NpyData }> = {
  u1: { bytes: 1, ctor: Uint8Array },
  i1: { bytes: 1, ctor: Int8Array },
  u2: { bytes: 2, ctor: Uint16Array },
  i2: { bytes: 2, ctor: Int16Array },
  u4: { bytes: 4, ctor: Uint32Array },
  i4: { bytes: 4, ctor: Int32Array },
  u8: { bytes: 8, ctor: BigUint64Array },
  i8: { bytes: 8, ctor: BigInt64Array },
  f4: { bytes: 4, ctor: Float32Array },
  f8: { bytes: 8, ctor: Float64Array },
};

/** The dtype of a typed array (Uint8ClampedArray is written as u1). */
export function dtypeOf(data: ArrayBufferView): NpyDtype {
  if (data instanceof Uint8Array || data instanceof Uint8ClampedArray) return 'u1';
  if (data instanceof Int8Array) return 'i1';
  if (data instanceof Uint16Array) return 'u2';
  if (data instanceof Int16Array) return 'i2';
  if (data instanceof Uint32Array) return 'u4';
  if (data instanceof Int32Array) return 'i4';
  if (data instanceof BigUint64Array) return 'u8';
  if (data instanceof BigInt64Array) return 'i8';
  if (data instanceof Float32Array) return 'f4';
  if (data instanceof Float64Array) return 'f8';
  throw new NpyFormatError(`unsupported array type ${data?.constructor?.name ?? typeof data}`);
}

function descrOf(dtype: NpyDtype): string {
  return DTYPES[dtype].bytes === 1 ? `|${dtype}` : `<${dtype}`;
}

function parseDescr(descr: string): NpyDtype {
  const m = /^([<>|=]?)([uif])(\d+)$/.exec(descr);
  if (!m) throw new NpyFormatError(`unsupported dtype descr '${descr}' (only simple integer and float dtypes)`);
  const [, order, kind, size] = m;
  const dtype = `${kind}${size}` as NpyDtype;
  if (!(dtype in DTYPES)) throw new NpyFormatError(`unsupported dtype '${descr}' (supported: u1 i1 u2 i2 u4 i4 u8 i8 f4 f8)`);
  if (order === '>' && DTYPES[dtype].bytes > 1) throw new NpyFormatError(`big-endian dtype '${descr}' is not supported`);
  if (order === '=') throw new NpyFormatError(`native-order dtype '${descr}' is ambiguous; write an explicit '<' or '|'`);
  return dtype;
}

// --- A parser for the Python-literal subset numpy writes in the header. ---
type PyValue = string | number | boolean | null | PyValue[] | { [k: string]: PyValue };

function parsePyLiteral(src: string): PyValue {
  let p = 0;
  const ws = (): void => {
    while (p < src.length && /\s/.test(src[p]!)) p++;
  };
  const fail = (what: string): never => {
    throw new NpyFormatError(`header is not a valid Python literal: ${what} at offset ${p} in ${JSON.stringify(src)}`);
  };
  const value = (): PyValue => {
    ws();
    const ch = src[p];
    if (ch === '{') {
      p++;
      const obj: { [k: string]: PyValue } = {};
      for (;;) {
        ws();
        if (src[p] === '}') {
          p++;
          return obj;
        }
        const k = value();
        if (typeof k !== 'string') fail('dict key that is not a string');
        ws();
        if (src[p] !== ':') fail("expected ':'");
        p++;
        obj[k as string] = value();
        ws();
        if (src[p] === ',') p++;
        else if (src[p] !== '}') fail("expected ',' or '}'");
      }
    }
    if (ch === '(' || ch === '[') {
      const close = ch === '(' ? ')' : ']';
      p++;
      const arr: PyValue[] = [];
      for (;;) {
        ws();
        if (src[p] === close) {
          p++;
          return arr;
        }
        arr.push(value());
        ws();
        if (src[p] === ',') p++;
        else if (src[p] !== close) fail(`expected ',' or '${close}'`);
      }
    }
    if (ch === "'" || ch === '"') {
      const end = src.indexOf(ch, p + 1);
      if (end < 0) fail('unterminated string');
      const s = src.slice(p + 1, end);
      p = end + 1;
      return s;
    }
    const m = /^(True|False|None|-?\d+L?)/.exec(src.slice(p));
    if (!m) return fail('unexpected token');
    p += m[0].length;
    if (m[0] === 'True') return true;
    if (m[0] === 'False') return false;
    if (m[0] === 'None') return null;
    return Number.parseInt(m[0], 10);
  };
  const v = value();
  ws();
  if (p !== src.length) fail('trailing characters');
  return v;
}

/** Parses the header; returns dtype, shape and the byte offset of the data. */
export function readNpyHeader(bytes: Uint8Array): { dtype: NpyDtype; shape: number[]; dataOffset: number; version: [number, number] } {
  if (!(bytes instanceof Uint8Array)) throw new NpyFormatError('input must be a Uint8Array');
  if (bytes.length < 10) throw new NpyFormatError(`file is ${bytes.length} bytes, too short for an .npy preamble`);
  for (let i = 0; i < MAGIC.length; i++) {
    if (bytes[i] !== MAGIC[i]) throw new NpyFormatError('bad magic: not an .npy file (expected \\x93NUMPY)');
  }
  const major = bytes[6]!;
  const minor = bytes[7]!;
  let headerLen: number;
  let start: number;
  if (major === 1) {
    headerLen = bytes[8]! | (bytes[9]! << 8);
    start = 10;
  } else if (major === 2 || major === 3) {
    if (bytes.length < 12) throw new NpyFormatError(`file is ${bytes.length} bytes, too short for a version ${major}.${minor} preamble`);
    headerLen = (bytes[8]! | (bytes[9]! << 8) | (bytes[10]! << 16) | (bytes[11]! << 24)) >>> 0;
    start = 12;
  } else {
    throw new NpyFormatError(`unsupported .npy format version ${major}.${minor}`);
  }
  if (minor !== 0) throw new NpyFormatError(`unsupported .npy format version ${major}.${minor}`);
  if (start + headerLen > bytes.length) {
    throw new NpyFormatError(`truncated header: header length ${headerLen} runs past the end of the ${bytes.length}-byte file`);
  }
  const raw = bytes.subarray(start, start + headerLen);
  const text = major === 3 ? new TextDecoder('utf-8', { fatal: true }).decode(raw) : Array.from(raw, (b) => String.fromCharCode(b)).join('');
  const dict = parsePyLiteral(text.trim());
  if (dict === null || typeof dict !== 'object' || Array.isArray(dict)) throw new NpyFormatError(`header is not a dict: ${text.trim()}`);
  for (const k of ['descr', 'fortran_order', 'shape']) {
    if (!(k in dict)) throw new NpyFormatError(`header lacks the '${k}' key: ${text.trim()}`);
  }
  const descr = dict['descr'];
  if (typeof descr !== 'string') throw new NpyFormatError(`'descr' must be a string (structured dtypes are not supported), got ${JSON.stringify(descr)}`);
  const dtype = parseDescr(descr);
  if (dict['fortran_order'] !== false) {
    throw new NpyFormatError(dict['fortran_order'] === true ? 'Fortran-order arrays are not supported (only C order)' : `'fortran_order' must be True or False`);
  }
  const shapeV = dict['shape'];
  if (!Array.isArray(shapeV) || !shapeV.every((d) => typeof d === 'number' && Number.isSafeInteger(d) && d >= 0)) {
    throw new NpyFormatError(`'shape' must be a tuple of non-negative integers, got ${JSON.stringify(shapeV)}`);
  }
  const shape = shapeV as number[];
  if (shape.length < 1 || shape.length > 2) throw new NpyFormatError(`only 1-D and 2-D arrays are supported, got shape (${shape.join(', ')})`);
  return { dtype, shape, dataOffset: start + headerLen, version: [major, minor] };
}

/** Reads an .npy file. The data is copied into a fresh, aligned typed array. */
export function readNpy(bytes: Uint8Array): NpyArray {
  const { dtype, shape, dataOffset } = readNpyHeader(bytes);
  const count = shape.reduce((a, b) => a * b, 1);
  const { bytes: size, ctor } = DTYPES[dtype];
  const need = count * size;
  const have = bytes.length - dataOffset;
  if (have < need) throw new NpyFormatError(`truncated data: shape (${shape.join(', ')}) of ${dtype} needs ${need} bytes, file has ${have}`);
  if (have > need) throw new NpyFormatError(`${have - need} unexpected trailing bytes after the ${need} data bytes`);
  const data = ctor === Uint8Array ? new Uint8Array(count) : new ctor(count);
  new Uint8Array(data.buffer, data.byteOffset, need).set(bytes.subarray(dataOffset, dataOffset + need));
  return { dtype, shape: [...shape], data };
}

export interface WriteNpyOptions {
  /** Format version; default 1 (2 automatically when the header does not fit 65535 bytes). */
  version?: 1 | 2;
}

/** Writes a 1-D (default shape [data.length]) or 2-D array in C order. */
export function writeNpy(data: NpyData | Uint8ClampedArray, shape: number[] = [data.length], options: WriteNpyOptions = {}): Uint8Array {
  const dtype = dtypeOf(data);
  if (!Array.isArray(shape) || shape.length < 1 || shape.length > 2) {
    throw new NpyFormatError(`only 1-D and 2-D arrays are supported, got shape ${JSON.stringify(shape)}`);
  }
  for (const d of shape) {
    if (!Number.isSafeInteger(d) || d < 0) throw new NpyFormatError(`shape entries must be non-negative integers, got ${JSON.stringify(shape)}`);
  }
  const count = shape.reduce((a, b) => a * b, 1);
  if (count !== data.length) throw new NpyFormatError(`shape (${shape.join(', ')}) holds ${count} elements, data has ${data.length}`);
  const version = options.version ?? 1;
  if (version !== 1 && version !== 2) throw new NpyFormatError(`can only write format version 1 or 2, got ${String(version)}`);
  const shapeStr = shape.length === 1 ? `(${shape[0]},)` : `(${shape[0]}, ${shape[1]})`;
  const dict = `{'descr': '${descrOf(dtype)}', 'fortran_order': False, 'shape': ${shapeStr}, }`;
  let v: 1 | 2 = version;
  let pre = v === 1 ? 10 : 12;
  let total = Math.ceil((pre + dict.length + 1) / 64) * 64;
  if (v === 1 && total - pre > 0xffff) {
    v = 2;
    pre = 12;
    total = Math.ceil((pre + dict.length + 1) / 64) * 64;
  }
  const headerLen = total - pre;
  const header = dict + ' '.repeat(headerLen - dict.length - 1) + '\n';
  const nbytes = data.byteLength;
  const out = new Uint8Array(total + nbytes);
  out.set(MAGIC, 0);
  out[6] = v;
  out[7] = 0;
  if (v === 1) {
    out[8] = headerLen & 0xff;
    out[9] = headerLen >>> 8;
  } else {
    new DataView(out.buffer).setUint32(8, headerLen, true);
  }
  for (let i = 0; i < header.length; i++) out[pre + i] = header.charCodeAt(i);
  // Typed arrays are in platform byte order; every supported JS platform is little-endian.
  out.set(new Uint8Array(data.buffer, data.byteOffset, nbytes), total);
  return out;
}

/**
 * A job's input buffer from an .npy file: `buffers: { x: npyBuffer(bytes, { name: 'x.npy', shape: [300] }) }`.
 * Returns the buffer spec `[dtype, data]`, its dtype the file's (f4 → 'f32', i4 → 'i32', u1 →
 * 'u8', …). With `shape`, a file of another shape is an NpyFormatError naming both; every error
 * starts with `name` (default 'the .npy file').
 */
export function npyBuffer(bytes: Uint8Array, expect: { name?: string; shape?: readonly number[] } = {}): [DType, NpyData] {
  const name = expect.name ?? 'the .npy file';
  let a: NpyArray;
  try {
    a = readNpy(bytes);
  } catch (e) {
    if (e instanceof NpyFormatError) throw new NpyFormatError(`${name}: ${e.message}`);
    throw e;
  }
  const want = expect.shape;
  if (want !== undefined && (want.length !== a.shape.length || want.some((d, k) => d !== a.shape[k]))) {
    const fmt = (s: readonly number[]): string => `(${s.join(', ')}${s.length === 1 ? ',' : ''})`;
    throw new NpyFormatError(`${name}: shape ${fmt(a.shape)}, the job expects ${fmt(want)}`);
  }
  return [dtypeOfArray(a.data)!, a.data];
}
