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

// i64 (lo, hi) from an i32 (sign-extended).
fn i64OfI32(x: i32) -> vec2u { return vec2u(bitcast<u32>(x), select(0u, 0xffffffffu, x < 0)); }

// v << k, v >> k on (lo, hi) u64 words (WGSL takes shift counts mod 32: k = 0 and k ≥ 32 apart).
fn shl64(v: vec2u, k: u32) -> vec2u {
  if (k == 0u) { return v; }
  if (k >= 32u) { return vec2u(0u, v.x << (k - 32u)); }
  return vec2u(v.x << k, (v.y << k) | (v.x >> (32u - k)));
}
fn shr64(v: vec2u, k: u32) -> vec2u {
  if (k == 0u) { return v; }
  if (k >= 32u) { return vec2u(v.y >> (k - 32u), 0u); }
  return vec2u((v.x >> k) | (v.y << (32u - k)), v.y >> k);
}

// The IEEE binary64 bits (lo, hi) of the u64 v = (lo, hi), rounded to nearest, ties to even
// (what wasm's f64.convert_i64_u does).
fn f64BitsOfU64(v: vec2u) -> vec2u {
  if (v.x == 0u && v.y == 0u) { return vec2u(0u, 0u); }
  var p: u32;
  if (v.y != 0u) { p = 63u - countLeadingZeros(v.y); } else { p = 31u - countLeadingZeros(v.x); }
  var m: vec2u;
  if (p <= 52u) {
    m = shl64(v, 52u - p);
  } else {
    let s = p - 52u; // 1..11: the dropped bits all lie in the low word
    m = shr64(v, s);
    let rem = v.x & ((1u << s) - 1u);
    let half = 1u << (s - 1u);
    if (rem > half || (rem == half && (m.x & 1u) == 1u)) {
      let lo = m.x + 1u;
      m = vec2u(lo, m.y + select(0u, 1u, lo == 0u));
      if (m.y >= (1u << 21u)) { m = shr64(m, 1u); p = p + 1u; } // carried into 2^53
    }
  }
  return vec2u(m.x, ((1023u + p) << 20u) | (m.y & 0xfffffu));
}

// A u64 key with key(a) ≤ key(b) ⇔ a ≤ b for non-NaN doubles (−0 mapped to +0).
fn f64Key(b: vec2u) -> vec2u {
  if (b.x == 0u && (b.y & 0x7fffffffu) == 0u) { return vec2u(0u, 0x80000000u); }
  if ((b.y & 0x80000000u) != 0u) { return vec2u(~b.x, ~b.y); }
  return vec2u(b.x, b.y | 0x80000000u);
}
fn le64(a: vec2u, b: vec2u) -> bool { return a.y < b.y || (a.y == b.y && a.x <= b.x); }
fn lt64(a: vec2u, b: vec2u) -> bool { return a.y < b.y || (a.y == b.y && a.x < b.x); }

// The u64 (lo, hi) value of a double that holds a non-negative integer below 2^64 (e.g. a tick
// count converted by f64BitsOfU64); fraction bits are dropped, negative values give 0.
fn u64OfF64Bits(b: vec2u) -> vec2u {
  if ((b.y & 0x80000000u) != 0u) { return vec2u(0u, 0u); }
  let e = (b.y >> 20u) & 0x7ffu;
  if (e < 1023u) { return vec2u(0u, 0u); }
  let m = vec2u(b.x, (b.y & 0xfffffu) | 0x100000u);
  let p = e - 1023u;
  if (p <= 52u) { return shr64(m, 52u - p); }
  return shl64(m, p - 52u);
}

// a - b on u64 (lo, hi), wrapping.
fn sub64(a: vec2u, b: vec2u) -> vec2u {
  return vec2u(a.x - b.x, a.y - b.y - select(0u, 1u, a.x < b.x));
}

// For integer times held as u64 ticks: f64(later - earlier) <= window (window as f64 bits), with
// the difference rounded to nearest as wasm's f64 subtraction of the two times does (exact for
// ticks below 2^53, the one rounding above). The PET coincidence kernels' window test.
fn f64DiffWithin(later: vec2u, earlier: vec2u, windowBits: vec2u) -> bool {
  var d: vec2u;
  if (later.y < earlier.y || (later.y == earlier.y && later.x < earlier.x)) {
    let m = f64BitsOfU64(sub64(earlier, later));
    d = vec2u(m.x, m.y | 0x80000000u);
  } else {
    d = f64BitsOfU64(sub64(later, earlier));
  }
  return le64(f64Key(d), f64Key(windowBits));
}
