// wide.wgsl — 64-bit storage helpers. WGSL has no f64, i64 or u64. simt keeps 64-bit device
// arrays in the host's own bytes (8 bytes per element, little-endian), and a WGSL kernel binds
// such an array as `array<vec2u>`: element i is the vec2u (lo word, hi word) of the host's
// Float64Array / BigInt64Array / BigUint64Array element i. These helpers build those words.
//
// Prepended to every kernel source by the runtime, after cuda_atomics.wgsl (see
// src/webgpu/runtime.ts).

// The IEEE-754 binary64 bits (lo, hi) of the f32 `x`, exactly (every f32 is an f64): signs,
// zeros, denormals (normalised), infinities and NaN payloads are carried over.
fn f64BitsOfF32(x: f32) -> vec2u {
  let b = bitcast<u32>(x);
  let sign = b & 0x80000000u;
  let e = (b >> 23u) & 0xffu;
  var m = b & 0x7fffffu;
  var e64 = 0u;
  if (e == 0xffu) {
    e64 = 0x7ffu;
  } else if (e == 0u) {
    if (m == 0u) { return vec2u(0u, sign); }
    // m * 2^-149 with the top bit of m at p = 31 - clz(m): shift it up to bit 23.
    let shift = countLeadingZeros(m) - 8u;
    m = (m << shift) & 0x7fffffu;
    e64 = 897u - shift;
  } else {
    e64 = e + 896u; // rebias: 1023 - 127
  }
  return vec2u(m << 29u, sign | (e64 << 20u) | (m >> 3u));
}

// u64 (lo, hi) from a u32; i64 (lo, hi) from an i32 (sign-extended).
fn u64OfU32(x: u32) -> vec2u { return vec2u(x, 0u); }
fn i64OfI32(x: i32) -> vec2u { return vec2u(bitcast<u32>(x), select(0u, 0xffffffffu, x < 0)); }
