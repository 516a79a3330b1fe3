// 64-bit values in kernels (i64, u64, f64): every operation the WGSL back end computes in software
// (src/compiler/wgslWide.ts), one kernel per group, each output element one operation on one
// input element, so a test compares the backends element by element.
import { threadIdx, blockIdx, blockDim, gridDim } from "simt/kernel";

/** out[k·n + i] = operation k on (a[i], b[i]) (16 of them); flags[i] = the six comparisons as bits. */
export function f64Arith(a: f64[], b: f64[], out: f64[], flags: i32[], n: i32): void {
  for (let i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    const x = a[i];
    const y = b[i];
    out[i] = x + y;
    out[n + i] = x - y;
    out[2 * n + i] = x * y;
    out[3 * n + i] = x / y;
    out[4 * n + i] = min(x, y);
    out[5 * n + i] = max(x, y);
    out[6 * n + i] = -x;
    out[7 * n + i] = abs(x);
    out[8 * n + i] = floor(x);
    out[9 * n + i] = ceil(x);
    out[10 * n + i] = trunc(x);
    out[11 * n + i] = copysign(x, y);
    out[12 * n + i] = sqrt(x);
    out[13 * n + i] = nearest(x);
    out[14 * n + i] = Math.sqrt(y) + Math.min(x, Math.PI);
    out[15 * n + i] = Math.fround(x) - Math.floor(y) * Math.abs(x);
    let f = 0;
    if (x < y) f |= 1;
    if (x <= y) f |= 2;
    if (x > y) f |= 4;
    if (x >= y) f |= 8;
    if (x == y) f |= 16;
    if (x != y) f |= 32;
    flags[i] = f;
  }
}

/** a[i] converted to f32, i32, u32, i64 and u64 (float to integer saturating). */
export function f64Narrow(a: f64[], toF32: f32[], toI32: i32[], toU32: u32[], toI64: i64[], toU64: u64[], n: i32): void {
  for (let i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    const x = a[i];
    toF32[i] = <f32>x;
    toI32[i] = <i32>x;
    toU32[i] = <u32>x;
    toI64[i] = <i64>x;
    toU64[i] = <u64>x;
  }
}

/** out[k·n + i] = f64 of f[i], ia[i], ua[i], la[i], ula[i]; outF32[k·n + i] = f32 of la[i], ula[i]. */
export function f64Widen(f: f32[], ia: i32[], ua: u32[], la: i64[], ula: u64[], out: f64[], outF32: f32[], n: i32): void {
  for (let i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    out[i] = <f64>f[i];
    out[n + i] = <f64>ia[i];
    out[2 * n + i] = <f64>ua[i];
    out[3 * n + i] = <f64>la[i];
    out[4 * n + i] = <f64>ula[i];
    outF32[i] = <f32>la[i];
    outF32[n + i] = <f32>ula[i];
  }
}

/** The i64 / u64 operators: out[k·n + i] (signed), uout[k·n + i] (unsigned), flags[i] the comparisons. */
export function int64Ops(a: i64[], b: i64[], out: i64[], uout: u64[], flags: i32[], narrow: i32[], n: i32): void {
  for (let i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    const x = a[i];
    const y = b[i];
    const ux = <u64>x;
    const uy = <u64>y;
    out[i] = x + y;
    out[n + i] = x - y;
    out[2 * n + i] = x * y;
    out[3 * n + i] = x & y;
    out[4 * n + i] = x | y;
    out[5 * n + i] = x ^ y;
    out[6 * n + i] = x << y;
    out[7 * n + i] = x >> y;
    out[8 * n + i] = -x;
    out[9 * n + i] = ~x;
    out[10 * n + i] = min(x, y);
    out[11 * n + i] = max(x, y);
    out[12 * n + i] = abs(x);
    uout[i] = ux >> uy;
    uout[n + i] = x >>> y;
    uout[2 * n + i] = min(ux, uy);
    uout[3 * n + i] = max(ux, uy);
    let f = 0;
    if (x < y) f |= 1;
    if (x <= y) f |= 2;
    if (x > y) f |= 4;
    if (x >= y) f |= 8;
    if (x == y) f |= 16;
    if (x != y) f |= 32;
    if (ux < uy) f |= 64;
    if (ux <= uy) f |= 128;
    if (ux > uy) f |= 256;
    if (ux >= uy) f |= 512;
    flags[i] = f;
    narrow[i] = <i32>x;
    narrow[n + i] = <i32>(<u32>(x >> 32));
    narrow[2 * n + i] = <i32>(<i16>x);
  }
}

/** Scalars, literals, compound assignments and reinterpret: out[i] and bits[i] from a[i] and the scalars. */
export function wideScalars(a: f64[], out: f64[], bits: u64[], fbits: u32[], f: f32[], s: f64, k: i64, n: i32): void {
  for (let i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    let v = a[i] * s + <f64>k;
    v += 0.1;
    v *= 3;
    v -= 1.5e-300;
    out[i] = v;
    let w = reinterpret<u64>(a[i]);
    w ^= 0x8000000000000001;
    w += <u64>k;
    w <<= 3;
    bits[i] = w;
    fbits[i] = reinterpret<u32>(f[i]) ^ reinterpret<u32>(<f32>v);
    out[n + i] = reinterpret<f64>(w) > 0 ? reinterpret<f64>(w) : <f64>i;
  }
}

/** 32-bit integer division and remainder (i32, and u32 as bits): where wasm traps, the WGSL notes the same trap. */
export function intDivide(a: i32[], b: i32[], out: i32[], n: i32): void {
  for (let i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    out[i] = a[i] / b[i];
    out[n + i] = a[i] % b[i];
    out[2 * n + i] = <i32>(<u32>a[i] / <u32>b[i]);
    let r = <u32>a[i];
    r %= <u32>b[i];
    out[3 * n + i] = <i32>r;
  }
}
