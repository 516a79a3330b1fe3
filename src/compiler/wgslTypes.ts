// The kernel language's value types as WGSL sees them: which have a WGSL form, how a value of
// one converts to another with AssemblyScript's meaning, and how literals are spelled.
//
// 8- and 16-bit values live in 32-bit WGSL values (u8/u16 zero-extended in a u32, i8/i16
// sign-extended in an i32) and are wrapped where AssemblyScript wraps them: when stored into a
// variable or array element of that type, and by an explicit conversion. 64-bit values (i64,
// u64, f64) are the vec2u (lo, hi) of their bits, computed by wgslWide.ts's functions.

/** A value type of the kernel language that has a WGSL form. */
export type WType = 'i32' | 'u32' | 'f32' | 'bool' | 'u8' | 'u16' | 'i8' | 'i16' | 'i64' | 'u64' | 'f64';

/** The 64-bit types: a vec2u of their bits in WGSL. */
export type Wide = 'i64' | 'u64' | 'f64';
export const isWide = (t: WType): t is Wide => t === 'i64' || t === 'u64' || t === 'f64';

/** Why a type has no WGSL form (thrown by wtypeOf, turned into a diagnostic by the caller). */
export class NoWgslType extends Error {}

/** The WType of an AssemblyScript type name. */
export function wtypeOf(asType: string | null): WType {
  switch (asType) {
    case 'i32': case 'isize': return 'i32';
    case 'u32': case 'usize': return 'u32';
    case 'f32': case 'bool': case 'u8': case 'u16': case 'i8': case 'i16': case 'f64': case 'i64': case 'u64': return asType;
    case null: throw new NoWgslType('cannot infer this value\'s type: declare it (let x: f32 = …)');
    default: throw new NoWgslType(`type '${asType}' has no WGSL form`);
  }
}

/** The type values of t compute in: the 32-bit type of a small one, t itself otherwise. */
export function reprOf<T extends WType>(t: T): T extends Wide ? T : 'i32' | 'u32' | 'f32' | 'bool' {
  return (t === 'u8' || t === 'u16' ? 'u32' : t === 'i8' || t === 'i16' ? 'i32' : t) as T extends Wide ? T : 'i32' | 'u32' | 'f32' | 'bool';
}

/** The WGSL type that holds values of t. */
export function wgslType(t: WType): 'i32' | 'u32' | 'f32' | 'bool' | 'vec2u' {
  return isWide(t) ? 'vec2u' : reprOf(t);
}

export function bitsOf(t: WType): number {
  return t === 'u8' || t === 'i8' ? 8 : t === 'u16' || t === 'i16' ? 16 : t === 'bool' ? 1 : isWide(t) ? 64 : 32;
}

export const isFloat = (t: WType): boolean => t === 'f32' || t === 'f64';
export const isSmall = (t: WType): boolean => bitsOf(t) === 8 || bitsOf(t) === 16;

/**
 * The type both operands of a binary operator are converted to (AssemblyScript's common
 * denominator: a float wins, then the wider integer, then the left operand's type). Small
 * types compute in their 32-bit representation.
 */
export function commonType(a: WType, b: WType): WType {
  if (a === 'f64' || b === 'f64') return 'f64';
  if (a === 'f32' || b === 'f32') return 'f32';
  if (a === 'u64' || b === 'u64') return a === 'i64' || b === 'i64' ? (a === 'u64' ? 'u64' : 'i64') : 'u64';
  if (a === 'i64' || b === 'i64') return 'i64';
  if (a === 'bool' && b === 'bool') return 'bool';
  if (a === 'bool') return reprOf(b);
  if (b === 'bool') return reprOf(a);
  if (bitsOf(a) >= bitsOf(b)) return bitsOf(a) === 32 ? a : reprOf(a) === reprOf(b) ? reprOf(a) : 'i32';
  return reprOf(b);
}

/** WGSL text converting `text` (a value of type from) to type to, with AssemblyScript's result. */
export function convert(text: string, from: WType, to: WType): string {
  if (from === to) return text;
  if (isWide(from) || isWide(to)) return convertWide(text, from, to);
  const rf = reprOf(from), rt = reprOf(to);
  if (to === 'bool') return rf === 'bool' ? text : `(${text} != ${zero(rf)})`;
  let v = text;
  if (rf === 'bool') v = `${rt}(${text})`;
  else if (rf !== rt) v = `${rt}(${text})`;
  // Narrowing to a small type wraps as AssemblyScript does (mask, or shift the sign in).
  const fits = isSmall(from) && ((from[0] === to[0] && bitsOf(from) <= bitsOf(to)) || (from[0] === 'u' && to[0] === 'i' && bitsOf(from) < bitsOf(to)));
  if (isSmall(to) && !fits) {
    const b = bitsOf(to);
    v = rt === 'u32' ? `(${v} & ${(2 ** b - 1) >>> 0}u)` : `((${v} << ${32 - b}u) >> ${32 - b}u)`;
  }
  return v;
}

export function zero(t: 'i32' | 'u32' | 'f32' | 'bool' | 'vec2u' | Wide): string {
  return t === 'i32' ? '0i' : t === 'u32' ? '0u' : t === 'f32' ? '0.0f' : t === 'bool' ? 'false' : 'vec2u(0u, 0u)';
}

/**
 * Conversions to and from the 64-bit types (wgslWide.ts): integers wrap or extend as wasm's
 * i64.extend/wrap do, floats round to nearest, and float to integer saturates (asc's
 * nontrapping conversions).
 */
function convertWide(text: string, from: WType, to: WType): string {
  const rf = reprOf(from), rt = reprOf(to);
  if (rf === rt) return text;
  if (rt === 'bool') return `any(${text} != vec2u(0u, 0u))`;
  if (rf === 'f64') {
    switch (rt) {
      case 'f32': return `sx64_toF32(${text})`;
      case 'i64': return `sx64_toI64(${text})`;
      case 'u64': return `sx64_toU64(${text})`;
      case 'i32': return convert(`sx64_toI32(${text})`, 'i32', to);
      default: return convert(`sx64_toU32(${text})`, 'u32', to);
    }
  }
  if (rf === 'i64' || rf === 'u64') {
    if (rt === 'f64') return `sx64_from${rf === 'i64' ? 'I64' : 'U64'}(${text})`;
    if (rt === 'i64' || rt === 'u64') return text;
    // One rounding, as wasm's f32.convert_i64 (through f64 it would be two).
    if (rt === 'f32') return `sx64_${rf === 'i64' ? 'i' : 'u'}64ToF32(${text})`;
    // wasm's i32.wrap_i64: the low word, then AssemblyScript's wrap to a small type.
    return convert(rt === 'i32' ? `bitcast<i32>((${text}).x)` : `(${text}).x`, rt, to);
  }
  // From a 32-bit (or small, or bool) value to a 64-bit one.
  switch (rf) {
    case 'bool': return rt === 'f64' ? `select(vec2u(0u, 0u), vec2u(0u, 0x3ff00000u), ${text})` : `vec2u(select(0u, 1u, ${text}), 0u)`;
    case 'f32': return rt === 'f64' ? `sx64_fromF32(${text})` : rt === 'i64' ? `sx64_toI64(sx64_fromF32(${text}))` : `sx64_toU64(sx64_fromF32(${text}))`;
    case 'i32': return rt === 'f64' ? `sx64_fromI32(${text})` : `sx64_ofI32(${text})`;
    default: return rt === 'f64' ? `sx64_fromU32(${text})` : `vec2u(${text}, 0u)`;
  }
}

/** An integer literal's WGSL spelling as type t (wrapped to 32 bits as AssemblyScript's constant folding does). */
export function intLiteral(v: bigint, t: WType): string {
  if (t === 'f64') return f64Literal(Number(v));
  if (t === 'i64' || t === 'u64') {
    const u = BigInt.asUintN(64, v);
    return `vec2u(${u & 0xffffffffn}u, ${u >> 32n}u)`;
  }
  const r = reprOf(t);
  if (r === 'bool') return v !== 0n ? 'true' : 'false';
  if (r === 'f32') return floatLiteral(Number(v));
  const bits = t === 'i32' || t === 'u32' ? 32 : bitsOf(t);
  const u = BigInt.asUintN(bits, v);
  if (r === 'u32') return `${u}u`;
  const s = BigInt.asIntN(bits, v);
  // -2147483648i is not a WGSL literal (the minus is an operator): spell it through its bits.
  return s === -(2n ** 31n) ? 'i32(-2147483647i - 1i)' : s < 0n ? `(${s}i)` : `${s}i`;
}

/** A finite f32 literal; infinities and NaN come from runtime values (WGSL rejects them in constants). */
export function floatLiteral(v: number): string {
  if (Number.isNaN(v)) return 'sx_nan';
  if (v === Infinity) return 'sx_inf';
  if (v === -Infinity) return '(-sx_inf)';
  const f = Math.fround(v);
  if (!Number.isFinite(f)) return v > 0 ? 'sx_inf' : '(-sx_inf)';
  if (Object.is(f, -0)) return '(-0.0f)';
  const s = String(f);
  return (/[.e]/.test(s) ? s : `${s}.0`) + 'f';
}

/** An f64 constant: the vec2u of its bits (NaN and the infinities too: they are bits here). */
export function f64Literal(v: number): string {
  const w = new Uint32Array(new Float64Array([v]).buffer);
  return `vec2u(${w[0]}u, ${w[1]}u)`;
}

/** Bytes of one element of a device array type (for the dynamic shared array's length). */
export function elemBytes(t: string): number {
  return ({ i8: 1, u8: 1, i16: 2, u16: 2, i32: 4, u32: 4, f32: 4, i64: 8, u64: 8, f64: 8 } as Record<string, number>)[t] ?? 4;
}
