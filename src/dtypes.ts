// Element types of device arrays and kernel scalars, with their host typed-array views.

export type DType = 'i8' | 'u8' | 'i16' | 'u16' | 'i32' | 'u32' | 'i64' | 'u64' | 'f32' | 'f64';

export interface TypedArrayOf {
  i8: Int8Array; u8: Uint8Array; i16: Int16Array; u16: Uint16Array; i32: Int32Array; u32: Uint32Array;
  i64: BigInt64Array; u64: BigUint64Array; f32: Float32Array; f64: Float64Array;
}

/** The JS value of one element: bigint for the 64-bit integers, number otherwise. */
export type ScalarOf<D extends DType> = D extends 'i64' | 'u64' ? bigint : number;

type Ctor = { new (buffer: ArrayBufferLike, byteOffset: number, length: number): ArrayLike<unknown>; BYTES_PER_ELEMENT: number; name: string };

export const DTYPES: Record<DType, { bytes: number; ctor: Ctor }> = {
  i8: { bytes: 1, ctor: Int8Array },
  u8: { bytes: 1, ctor: Uint8Array },
  i16: { bytes: 2, ctor: Int16Array },
  u16: { bytes: 2, ctor: Uint16Array },
  i32: { bytes: 4, ctor: Int32Array },
  u32: { bytes: 4, ctor: Uint32Array },
  i64: { bytes: 8, ctor: BigInt64Array as unknown as Ctor },
  u64: { bytes: 8, ctor: BigUint64Array as unknown as Ctor },
  f32: { bytes: 4, ctor: Float32Array },
  f64: { bytes: 8, ctor: Float64Array },
};

export function isDType(x: unknown): x is DType {
  return typeof x === 'string' && Object.prototype.hasOwnProperty.call(DTYPES, x);
}

export function dtypeBytes(d: DType): number {
  return DTYPES[d].bytes;
}

/** A typed-array view of `length` elements of dtype `d` at `byteOffset` of `buffer`. */
export function viewOf<D extends DType>(d: D, buffer: ArrayBufferLike, byteOffset: number, length: number): TypedArrayOf[D] {
  return new DTYPES[d].ctor(buffer, byteOffset, length) as unknown as TypedArrayOf[D];
}

/** The dtype a typed array holds, or undefined for anything else. */
export function dtypeOfArray(a: unknown): DType | undefined {
  for (const d of Object.keys(DTYPES) as DType[]) {
    if (a instanceof (DTYPES[d].ctor as unknown as Function)) return d;
  }
  return undefined;
}

/** CUDA's `roundFor128ByteAlignment`: the smallest multiple of 128 ≥ bytes. */
export function roundFor128ByteAlignment(bytes: number): number {
  return Math.ceil(bytes / 128) * 128;
}
