// 64-bit values in generated WGSL. WGSL has no i64, u64 or f64, so a value of any of them is the
// vec2u (lo word, hi word) of its bits, as a 64-bit device array's elements already are on webgpu
// (docs/webgpu.md), and every operation is a function of this prelude with wasm's exact result:
//
// - i64/u64: + - * wrap, bitwise operators, shifts by the count mod 64, comparisons signed or
//   unsigned, conversions to and from the 32-bit types;
// - f64: + - * / rounded to nearest, ties to even, with gradual underflow (a software binary64,
//   after Berkeley SoftFloat's f64 routines: significands with ten round bits and a sticky bit),
//   comparisons, negation, abs, min/max, copysign, trunc/floor/ceil, and conversions from and to
//   f32 and every integer type (to integers saturating, as asc's nontrapping conversions do).
//
// NaN results are quiet NaNs; which payload one carries follows x86 (the first NaN operand,
// quieted; 0xfff8000000000000 for an invalid operation), where wasm leaves it open.
//
// The compiler appends this text to a shader that calls any of these functions (wgslKernel.ts).

export const WIDE_PREFIX = 'sx64_';

export const WIDE64 = `
// ---- 64-bit integers: (lo, hi) words ----
fn sx64_add(a: vec2u, b: vec2u) -> vec2u { let lo = a.x + b.x; return vec2u(lo, a.y + b.y + select(0u, 1u, lo < a.x)); }
fn sx64_sub(a: vec2u, b: vec2u) -> vec2u { return vec2u(a.x - b.x, a.y - b.y - select(0u, 1u, a.x < b.x)); }
fn sx64_neg(a: vec2u) -> vec2u { return sx64_sub(vec2u(0u, 0u), a); }
// The full 64-bit product of two u32 (16-bit halves: WGSL has no widening multiply).
fn sx64_mul32(a: u32, b: u32) -> vec2u {
  let a0 = a & 0xffffu; let a1 = a >> 16u; let b0 = b & 0xffffu; let b1 = b >> 16u;
  let ll = a0 * b0; let lh = a0 * b1; let hl = a1 * b0; let hh = a1 * b1;
  let mid = (ll >> 16u) + (lh & 0xffffu) + (hl & 0xffffu);
  return vec2u((ll & 0xffffu) | (mid << 16u), hh + (lh >> 16u) + (hl >> 16u) + (mid >> 16u));
}
fn sx64_mul(a: vec2u, b: vec2u) -> vec2u { let p = sx64_mul32(a.x, b.x); return vec2u(p.x, p.y + a.x * b.y + a.y * b.x); }
fn sx64_shl(v: vec2u, n: u32) -> vec2u {
  let k = n & 63u;
  if (k == 0u) { return v; }
  if (k >= 32u) { return vec2u(0u, v.x << (k - 32u)); }
  return vec2u(v.x << k, (v.y << k) | (v.x >> (32u - k)));
}
fn sx64_shru(v: vec2u, n: u32) -> vec2u {
  let k = n & 63u;
  if (k == 0u) { return v; }
  if (k >= 32u) { return vec2u(v.y >> (k - 32u), 0u); }
  return vec2u((v.x >> k) | (v.y << (32u - k)), v.y >> k);
}
fn sx64_shrs(v: vec2u, n: u32) -> vec2u {
  let k = n & 63u;
  let hi = bitcast<i32>(v.y);
  if (k == 0u) { return v; }
  if (k >= 32u) { return vec2u(bitcast<u32>(hi >> (k - 32u)), bitcast<u32>(hi >> 31u)); }
  return vec2u((v.x >> k) | (v.y << (32u - k)), bitcast<u32>(hi >> k));
}
fn sx64_eq(a: vec2u, b: vec2u) -> bool { return a.x == b.x && a.y == b.y; }
fn sx64_ltu(a: vec2u, b: vec2u) -> bool { return a.y < b.y || (a.y == b.y && a.x < b.x); }
fn sx64_lts(a: vec2u, b: vec2u) -> bool { return sx64_ltu(vec2u(a.x, a.y ^ 0x80000000u), vec2u(b.x, b.y ^ 0x80000000u)); }
fn sx64_ofI32(x: i32) -> vec2u { return vec2u(bitcast<u32>(x), select(0u, 0xffffffffu, x < 0)); }
fn sx64_clz(v: vec2u) -> u32 { return select(countLeadingZeros(v.y), 32u + countLeadingZeros(v.x), v.y == 0u); }
// v >> k (k < 64), with every bit shifted out ORed into bit 0 (SoftFloat's shiftRightJam64).
fn sx64_shrJam(v: vec2u, k: u32) -> vec2u {
  if (k == 0u) { return v; }
  if (k >= 64u) { return vec2u(select(0u, 1u, v.x != 0u || v.y != 0u), 0u); }
  let r = sx64_shru(v, k);
  let lost = sx64_shl(v, 64u - k);
  return vec2u(r.x | select(0u, 1u, lost.x != 0u || lost.y != 0u), r.y);
}

// ---- f64: IEEE binary64 bits (lo, hi) ----
const SX64_DEFAULT_NAN = vec2u(0u, 0xfff80000u);
fn sx64_isNaN(b: vec2u) -> bool { return (b.y & 0x7fffffffu) > 0x7ff00000u || ((b.y & 0x7fffffffu) == 0x7ff00000u && b.x != 0u); }
fn sx64_quiet(b: vec2u) -> vec2u { return vec2u(b.x, b.y | 0x00080000u); }
fn sx64_fneg(b: vec2u) -> vec2u { return vec2u(b.x, b.y ^ 0x80000000u); }
fn sx64_fabs(b: vec2u) -> vec2u { return vec2u(b.x, b.y & 0x7fffffffu); }
fn sx64_copysign(a: vec2u, b: vec2u) -> vec2u { return vec2u(a.x, (a.y & 0x7fffffffu) | (b.y & 0x80000000u)); }
// A key whose unsigned order is the order of non-NaN doubles, -0 and +0 equal.
fn sx64_fkey(b: vec2u) -> vec2u {
  if (b.x == 0u && (b.y & 0x7fffffffu) == 0u) { return vec2u(0u, 0x80000000u); }
  if ((b.y & 0x80000000u) != 0u) { return vec2u(~b.x, ~b.y); }
  return vec2u(b.x, b.y | 0x80000000u);
}
fn sx64_feq(a: vec2u, b: vec2u) -> bool { return !sx64_isNaN(a) && !sx64_isNaN(b) && sx64_eq(sx64_fkey(a), sx64_fkey(b)); }
fn sx64_flt(a: vec2u, b: vec2u) -> bool { return !sx64_isNaN(a) && !sx64_isNaN(b) && sx64_ltu(sx64_fkey(a), sx64_fkey(b)); }
fn sx64_fle(a: vec2u, b: vec2u) -> bool { return !sx64_isNaN(a) && !sx64_isNaN(b) && !sx64_ltu(sx64_fkey(b), sx64_fkey(a)); }
// wasm's f64.min / f64.max: NaN if either is NaN, -0 below +0.
fn sx64_fmin(a: vec2u, b: vec2u) -> vec2u {
  if (sx64_isNaN(a)) { return sx64_quiet(a); }
  if (sx64_isNaN(b)) { return sx64_quiet(b); }
  if (sx64_feq(a, b)) { return vec2u(a.x | b.x, a.y | b.y); }
  return select(b, a, sx64_flt(a, b));
}
fn sx64_fmax(a: vec2u, b: vec2u) -> vec2u {
  if (sx64_isNaN(a)) { return sx64_quiet(a); }
  if (sx64_isNaN(b)) { return sx64_quiet(b); }
  if (sx64_feq(a, b)) { return vec2u(a.x & b.x, a.y & b.y); }
  return select(b, a, sx64_flt(b, a));
}

// Rounds sign · w · 2^(e - 1023 - 62) to binary64: w's leading bit at 62 for a normal result
// (or lower with e = 1, a subnormal), its low 10 bits round bits. e may be below 1 (the value
// then shifts into the subnormal range, jamming) or past the largest exponent (±infinity).
fn sx64_roundPack(sign: u32, e0: i32, w0: vec2u) -> vec2u {
  var e = e0;
  var w = w0;
  if (e < 1) { w = sx64_shrJam(w, u32(1 - e)); e = 1; }
  let roundBits = w.x & 0x3ffu;
  w = sx64_shru(w, 10u);
  if (roundBits > 0x200u || (roundBits == 0x200u && (w.x & 1u) == 1u)) { w = sx64_add(w, vec2u(1u, 0u)); }
  if (w.y >= 0x200000u) { w = sx64_shru(w, 1u); e = e + 1; }   // rounded up to 2^53
  if (e >= 0x7ff) { return vec2u(0u, sign | 0x7ff00000u); }
  let field = select(0u, u32(e), w.y >= 0x100000u);            // no hidden bit: subnormal
  return vec2u(w.x, sign | (field << 20u) | (w.y & 0xfffffu));
}
// The exponent field (1 for subnormals) and the 53-bit significand (hidden bit at 52 when normal).
fn sx64_exp(b: vec2u) -> i32 { return i32(max((b.y >> 20u) & 0x7ffu, 1u)); }
fn sx64_sig(b: vec2u) -> vec2u { return vec2u(b.x, (b.y & 0xfffffu) | select(0u, 0x100000u, ((b.y >> 20u) & 0x7ffu) != 0u)); }
fn sx64_isInf(b: vec2u) -> bool { return (b.y & 0x7fffffffu) == 0x7ff00000u && b.x == 0u; }
fn sx64_isZero(b: vec2u) -> bool { return (b.y & 0x7fffffffu) == 0u && b.x == 0u; }
// The NaN an arithmetic operation on a and b returns when one of them is NaN.
fn sx64_nanOf(a: vec2u, b: vec2u) -> vec2u { return select(sx64_quiet(b), sx64_quiet(a), sx64_isNaN(a)); }

fn sx64_fadd(a: vec2u, b: vec2u) -> vec2u {
  if (sx64_isNaN(a) || sx64_isNaN(b)) { return sx64_nanOf(a, b); }
  let sa = a.y & 0x80000000u;
  let sb = b.y & 0x80000000u;
  if (sx64_isInf(a)) { if (sx64_isInf(b) && sa != sb) { return SX64_DEFAULT_NAN; } return a; }
  if (sx64_isInf(b)) { return b; }
  if (sx64_isZero(a) && sx64_isZero(b)) { return vec2u(0u, sa & sb); }
  var ea = sx64_exp(a); var eb = sx64_exp(b);
  var wa = sx64_shl(sx64_sig(a), 10u); var wb = sx64_shl(sx64_sig(b), 10u);
  var sign = sa;
  // |a| >= |b| after the swap.
  if (eb > ea || (eb == ea && sx64_ltu(wa, wb))) {
    let te = ea; ea = eb; eb = te;
    let tw = wa; wa = wb; wb = tw;
    sign = sb;
  }
  wb = sx64_shrJam(wb, u32(ea - eb));
  if (sa == sb) {
    var w = sx64_add(wa, wb);
    var e = ea;
    if (w.y >= 0x80000000u) { w = sx64_shrJam(w, 1u); e = e + 1; }
    return sx64_roundPack(sign, e, w);
  }
  let d = sx64_sub(wa, wb);
  if (d.x == 0u && d.y == 0u) { return vec2u(0u, 0u); }       // x - x = +0 when rounding to nearest
  let lz = i32(sx64_clz(d)) - 1;                              // to bring the leading bit to 62
  let s = min(lz, ea - 1);
  return sx64_roundPack(sign, ea - s, sx64_shl(d, u32(s)));
}
fn sx64_fsub(a: vec2u, b: vec2u) -> vec2u {
  if (sx64_isNaN(a) || sx64_isNaN(b)) { return sx64_nanOf(a, b); }
  return sx64_fadd(a, sx64_fneg(b));
}
// A nonzero finite operand's significand with its leading bit at 52 and its exponent to match.
struct Sx64Norm { e: i32, s: vec2u }
fn sx64_norm(b: vec2u) -> Sx64Norm {
  let s = sx64_sig(b);
  let k = i32(sx64_clz(s)) - 11;
  return Sx64Norm(sx64_exp(b) - k, sx64_shl(s, u32(k)));
}
fn sx64_fmul(a: vec2u, b: vec2u) -> vec2u {
  if (sx64_isNaN(a) || sx64_isNaN(b)) { return sx64_nanOf(a, b); }
  let sign = (a.y ^ b.y) & 0x80000000u;
  if (sx64_isInf(a) || sx64_isInf(b)) {
    if (sx64_isZero(a) || sx64_isZero(b)) { return SX64_DEFAULT_NAN; }
    return vec2u(0u, sign | 0x7ff00000u);
  }
  if (sx64_isZero(a) || sx64_isZero(b)) { return vec2u(0u, sign); }
  let na = sx64_norm(a); let nb = sx64_norm(b);
  // The 106-bit product of the significands in four words, w0 lowest.
  let p00 = sx64_mul32(na.s.x, nb.s.x); let p01 = sx64_mul32(na.s.x, nb.s.y);
  let p10 = sx64_mul32(na.s.y, nb.s.x); let p11 = sx64_mul32(na.s.y, nb.s.y);
  let w0 = p00.x;
  let c1a = p00.y + p01.x; let k1a = select(0u, 1u, c1a < p00.y);
  let w1 = c1a + p10.x; let k1 = k1a + select(0u, 1u, w1 < c1a);
  let c2a = p01.y + p10.y; let k2a = select(0u, 1u, c2a < p01.y);
  let c2b = c2a + p11.x; let k2b = k2a + select(0u, 1u, c2b < c2a);
  let w2 = c2b + k1; let k2 = k2b + select(0u, 1u, w2 < c2b);
  let w3 = p11.y + k2;
  // The product lies in [2^104, 2^106): keep 64 bits with its leading bit at 62, jamming the rest.
  var e = na.e + nb.e - 1023;
  var shift = 42u;
  if (w3 >= 0x200u) { shift = 43u; e = e + 1; }
  // (w3:w2:w1:w0) >> shift, with shift in 42..43: bits from w1 up, the low bits jammed.
  let t = shift - 32u;
  let lo = (w1 >> t) | (w2 << (32u - t));
  let hi = (w2 >> t) | (w3 << (32u - t));
  let lost = w0 != 0u || (w1 & ((1u << t) - 1u)) != 0u;
  return sx64_roundPack(sign, e, vec2u(lo | select(0u, 1u, lost), hi));
}
fn sx64_fdiv(a: vec2u, b: vec2u) -> vec2u {
  if (sx64_isNaN(a) || sx64_isNaN(b)) { return sx64_nanOf(a, b); }
  let sign = (a.y ^ b.y) & 0x80000000u;
  if (sx64_isInf(a)) { if (sx64_isInf(b)) { return SX64_DEFAULT_NAN; } return vec2u(0u, sign | 0x7ff00000u); }
  if (sx64_isInf(b)) { return vec2u(0u, sign); }
  if (sx64_isZero(b)) { if (sx64_isZero(a)) { return SX64_DEFAULT_NAN; } return vec2u(0u, sign | 0x7ff00000u); }
  if (sx64_isZero(a)) { return vec2u(0u, sign); }
  let na = sx64_norm(a); let nb = sx64_norm(b);
  var e = na.e - nb.e + 1023;
  var rem = na.s;
  if (sx64_ltu(rem, nb.s)) { rem = sx64_shl(rem, 1u); e = e - 1; }
  // 63 quotient bits by long division: rem / nb.s lies in [1, 2), rem stays below 2^55. Plain
  // word arithmetic in the loop (see sx64_divmodu).
  let d = nb.s;
  var q = vec2u(0u, 0u);
  for (var i = 0u; i < 63u; i++) {
    q = vec2u(q.x << 1u, (q.y << 1u) | (q.x >> 31u));
    if (rem.y > d.y || (rem.y == d.y && rem.x >= d.x)) {
      rem = vec2u(rem.x - d.x, rem.y - d.y - select(0u, 1u, rem.x < d.x));
      q.x = q.x | 1u;
    }
    rem = vec2u(rem.x << 1u, (rem.y << 1u) | (rem.x >> 31u));
  }
  if (rem.x != 0u || rem.y != 0u) { q.x = q.x | 1u; }
  return sx64_roundPack(sign, e, q);
}

// wasm's f64.sqrt, correctly rounded: the significand's integer square root bit by bit (two
// radicand bits a step, the remainder jammed into the sticky bit), as SoftFloat's f64_sqrt rounds it.
fn sx64_fsqrt(a: vec2u) -> vec2u {
  if (sx64_isNaN(a)) { return sx64_quiet(a); }
  if (sx64_isZero(a)) { return a; }                              // ±0
  if ((a.y & 0x80000000u) != 0u) { return SX64_DEFAULT_NAN; }
  if (sx64_isInf(a)) { return a; }
  let na = sx64_norm(a);                                         // a = s · 2^(e - 1075), s in [2^52, 2^53)
  // Make the exponent of s even: a = m · 2^(2j), m = s or 2s.
  var m = na.s;
  var p = na.e - 1075;
  if ((p & 1) != 0) { m = sx64_shl(m, 1u); p = p - 1; }
  // q = floor(sqrt(m · 2^54)): m · 2^54 has 108 bits, taken two at a time from the top (m's own
  // 54 bits, padded to 54 with a leading zero when m < 2^53, then zeros).
  // Plain word arithmetic in the loop (see sx64_divmodu): x holds the radicand's bits still to
  // come at its top (m's bit 53 at bit 63), zeros once m's are taken.
  var x = sx64_shl(m, 10u);
  var q = vec2u(0u, 0u);
  var rem = vec2u(0u, 0u);
  for (var i = 0u; i < 54u; i++) {
    rem = vec2u((rem.x << 2u) | (x.y >> 30u), (rem.y << 2u) | (rem.x >> 30u));
    x = vec2u(x.x << 2u, (x.y << 2u) | (x.x >> 30u));
    let t = vec2u((q.x << 2u) | 1u, (q.y << 2u) | (q.x >> 30u));
    q = vec2u(q.x << 1u, (q.y << 1u) | (q.x >> 31u));
    if (rem.y > t.y || (rem.y == t.y && rem.x >= t.x)) {
      rem = vec2u(rem.x - t.x, rem.y - t.y - select(0u, 1u, rem.x < t.x));
      q.x = q.x | 1u;
    }
  }
  // sqrt(a) = q · 2^(j - 27) with q in [2^53, 2^54): leading bit to 62 (q << 9), the rest sticky.
  let w = sx64_shl(q, 9u);
  let e = 1023 + 53 + p / 2 - 27;
  return sx64_roundPack(0u, e, vec2u(w.x | select(0u, 1u, rem.x != 0u || rem.y != 0u), w.y));
}
// wasm's f64.nearest: round half to even.
fn sx64_fnearest(b: vec2u) -> vec2u {
  if (sx64_isNaN(b)) { return sx64_quiet(b); }
  let ef = (b.y >> 20u) & 0x7ffu;
  if (ef >= 1075u) { return b; }
  let sign = b.y & 0x80000000u;
  if (ef < 1022u) { return vec2u(0u, sign); }                   // |b| < 0.5
  let t = sx64_ftrunc(b);
  let frac = sx64_fsub(sx64_fabs(b), sx64_fabs(t));              // exact: both share the exponent range
  let half = vec2u(0u, 0x3fe00000u);
  var up = sx64_flt(half, frac);
  if (sx64_feq(frac, half)) {
    // a tie: away from t only when t is odd
    let tm = sx64_truncMag(b);
    up = (tm.x & 1u) == 1u;
  }
  if (!up) { return t; }
  return sx64_fadd(t, vec2u(0u, 0x3ff00000u | sign));
}

// ---- conversions ----
fn sx64_fromU64(v: vec2u) -> vec2u {
  if (v.x == 0u && v.y == 0u) { return vec2u(0u, 0u); }
  let lz = sx64_clz(v);
  // Leading bit to 62 (a right shift of one, jammed, when it is bit 63).
  if (lz == 0u) { return sx64_roundPack(0u, 1023 + 63, sx64_shrJam(v, 1u)); }
  return sx64_roundPack(0u, 1023 + 62 - (i32(lz) - 1), sx64_shl(v, lz - 1u));
}
fn sx64_fromI64(v: vec2u) -> vec2u {
  if ((v.y & 0x80000000u) == 0u) { return sx64_fromU64(v); }
  let m = sx64_fromU64(sx64_neg(v));
  return vec2u(m.x, m.y | 0x80000000u);
}
// wasm's f32.convert_i64_u / _s: rounded once, to nearest, ties to even.
fn sx64_u64ToF32(v: vec2u) -> f32 {
  if (v.x == 0u && v.y == 0u) { return 0.0f; }
  let lz = sx64_clz(v);
  let top = sx64_shl(v, lz);                                  // leading bit at 63
  var q = top.y >> 8u;
  let rem = top.y & 0xffu;
  if (rem > 0x80u || (rem == 0x80u && (top.x != 0u || (q & 1u) == 1u))) { q = q + 1u; }
  // q in [2^23, 2^24] stands for its leading bit at 63 - lz; a carry to 2^24 moves into the exponent.
  return bitcast<f32>(((63u - lz + 126u) << 23u) + q);
}
fn sx64_i64ToF32(v: vec2u) -> f32 {
  if ((v.y & 0x80000000u) == 0u) { return sx64_u64ToF32(v); }
  return bitcast<f32>(bitcast<u32>(sx64_u64ToF32(sx64_neg(v))) | 0x80000000u);
}
fn sx64_fromU32(x: u32) -> vec2u { return sx64_fromU64(vec2u(x, 0u)); }
fn sx64_fromI32(x: i32) -> vec2u { return sx64_fromI64(sx64_ofI32(x)); }
fn sx64_fromF32(x: f32) -> vec2u {
  let b = bitcast<u32>(x);
  let sign = b & 0x80000000u;
  let e = (b >> 23u) & 0xffu;
  var m = b & 0x7fffffu;
  if (e == 0xffu) {
    if (m != 0u) { return vec2u(m << 29u, sign | 0x7ff80000u | (m >> 3u)); }   // NaN, quieted
    return vec2u(0u, sign | 0x7ff00000u);
  }
  var e64 = e + 896u;
  if (e == 0u) {
    if (m == 0u) { return vec2u(0u, sign); }
    let shift = countLeadingZeros(m) - 8u;
    m = (m << shift) & 0x7fffffu;
    e64 = 897u - shift;
  }
  return vec2u(m << 29u, sign | (e64 << 20u) | (m >> 3u));
}
fn sx64_toF32(b: vec2u) -> f32 {
  let sign = b.y & 0x80000000u;
  let ef = (b.y >> 20u) & 0x7ffu;
  if (ef == 0x7ffu) {
    if ((b.y & 0xfffffu) != 0u || b.x != 0u) { return bitcast<f32>(sign | 0x7fc00000u | ((b.y & 0xfffffu) << 3u) | (b.x >> 29u)); }
    return bitcast<f32>(sign | 0x7f800000u);
  }
  if (ef == 0u) { return bitcast<f32>(sign); }                  // below 2^-1022: rounds to zero
  let e = i32(ef) - 1023 + 127;
  if (e >= 255) { return bitcast<f32>(sign | 0x7f800000u); }
  // The significand's top 32 bits (leading bit at 31) and whether any bit below them is set.
  let top = 0x80000000u | ((b.y & 0xfffffu) << 11u) | (b.x >> 21u);
  let sticky = (b.x & 0x1fffffu) != 0u;
  var shift = 8u;
  if (e <= 0) {
    let extra = u32(1 - e);
    if (extra > 24u) { return bitcast<f32>(sign); }             // below half the smallest subnormal
    shift = 8u + extra;
  }
  var q: u32; var up: bool;
  if (shift == 32u) {
    q = 0u; up = top > 0x80000000u || sticky;
  } else {
    q = top >> shift;
    let rem = top & ((1u << shift) - 1u);
    let half = 1u << (shift - 1u);
    up = rem > half || (rem == half && (sticky || (q & 1u) == 1u));
  }
  q = q + select(0u, 1u, up);
  // A normal result adds the exponent below its hidden bit (which carries into it); a subnormal is q itself.
  let bits = select(q, (u32(e - 1) << 23u) + q, e > 0);
  return bitcast<f32>(sign | min(bits, 0x7f800000u));
}
// Truncation toward zero of a non-NaN double's magnitude as u64, saturating at 2^64 - 1; 'p' the unbiased exponent.
fn sx64_truncMag(b: vec2u) -> vec2u {
  let ef = (b.y >> 20u) & 0x7ffu;
  if (ef < 1023u) { return vec2u(0u, 0u); }
  let p = ef - 1023u;
  if (p >= 64u) { return vec2u(0xffffffffu, 0xffffffffu); }
  let s = sx64_sig(b);
  if (p <= 52u) { return sx64_shru(s, 52u - p); }
  return sx64_shl(s, p - 52u);
}
fn sx64_toU64(b: vec2u) -> vec2u {
  if (sx64_isNaN(b) || (b.y & 0x80000000u) != 0u) { return vec2u(0u, 0u); }
  return sx64_truncMag(b);
}
fn sx64_toI64(b: vec2u) -> vec2u {
  if (sx64_isNaN(b)) { return vec2u(0u, 0u); }
  let m = sx64_truncMag(b);
  if ((b.y & 0x80000000u) != 0u) {
    if (m.y >= 0x80000000u) { return vec2u(0u, 0x80000000u); }
    return sx64_neg(m);
  }
  if (m.y >= 0x80000000u) { return vec2u(0xffffffffu, 0x7fffffffu); }
  return m;
}
fn sx64_toU32(b: vec2u) -> u32 { let m = sx64_toU64(b); return select(m.x, 0xffffffffu, m.y != 0u); }
fn sx64_toI32(b: vec2u) -> i32 {
  let m = sx64_toI64(b);
  let neg = (m.y & 0x80000000u) != 0u;
  if (!neg && (m.y != 0u || m.x > 0x7fffffffu)) { return 2147483647i; }
  if (neg && (m.y != 0xffffffffu || m.x < 0x80000000u)) { return i32(-2147483647i - 1i); }
  return bitcast<i32>(m.x);
}
// wasm's f64.trunc / floor / ceil (NaN quieted, zeros and infinities kept).
fn sx64_ftrunc(b: vec2u) -> vec2u {
  if (sx64_isNaN(b)) { return sx64_quiet(b); }
  let ef = (b.y >> 20u) & 0x7ffu;
  if (ef >= 1075u) { return b; }
  if (ef < 1023u) { return vec2u(0u, b.y & 0x80000000u); }
  let frac = 1075u - ef;   // fraction bits to clear, 1..52
  let mask = sx64_sub(sx64_shl(vec2u(1u, 0u), frac), vec2u(1u, 0u));
  return vec2u(b.x & ~mask.x, b.y & ~mask.y);
}
fn sx64_ffloor(b: vec2u) -> vec2u {
  let t = sx64_ftrunc(b);
  if ((b.y & 0x80000000u) != 0u && !sx64_isNaN(b) && !sx64_eq(t, b)) { return sx64_fsub(t, vec2u(0u, 0x3ff00000u)); }
  return t;
}
fn sx64_fceil(b: vec2u) -> vec2u {
  let t = sx64_ftrunc(b);
  if ((b.y & 0x80000000u) == 0u && !sx64_isNaN(b) && !sx64_eq(t, b)) { return sx64_fadd(t, vec2u(0u, 0x3ff00000u)); }
  // -0.5 → -0: trunc keeps the sign.
  return t;
}
`;
