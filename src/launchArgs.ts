// Checks a launch's arguments against the kernel's declaration — the same rules, and the same
// KernelArgumentError messages, on every backend. Each backend then encodes the checked values
// its own way (control-page slots on wasm, bind groups and uniform words on WebGPU).

import { KernelArgumentError } from './errors.js';
import type { Kernel, Param } from './kernel.js';

/** A short description of a value for error messages ("number 5", "Int32Array"). */
export function describe(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'object') return (v as object).constructor?.name ?? 'object';
  return `${typeof v} ${String(v)}`;
}

/**
 * The arguments in parameter order, from a positional array or an object keyed by parameter
 * name; rejects a wrong count, unknown names and non-objects. Missing values come back as
 * undefined (the per-parameter checks name them).
 */
export function argumentList(kernel: Kernel, args: unknown): unknown[] {
  const params = kernel.params;
  if (args === null || typeof args !== 'object') {
    throw new KernelArgumentError(kernel.name, '(all)', 'arguments must be an array or an object keyed by parameter name');
  }
  if (Array.isArray(args)) {
    if (args.length !== params.length) {
      throw new KernelArgumentError(kernel.name, params[Math.min(args.length, params.length - 1)]?.name ?? '(all)',
        `expected ${params.length} arguments (${params.map((p) => p.name).join(', ')}), got ${args.length}`);
    }
    return [...args];
  }
  const names = new Set(params.map((p) => p.name));
  for (const k of Object.keys(args)) {
    if (!names.has(k)) throw new KernelArgumentError(kernel.name, k, 'is not a parameter of this kernel');
  }
  return params.map((p) => (args as Record<string, unknown>)[p.name]);
}

/** The device-array facts an argument check needs. */
interface ArrayLikeArg { readonly device: { readonly id: number }; readonly freed: boolean; readonly dtype: string }

/**
 * Checks an array argument: present, a device array of this backend's class, of this device,
 * not freed, of the declared dtype. Returns it typed as that class.
 */
export function checkArrayArg<A extends ArrayLikeArg>(
  kernel: string, p: Param & { kind: 'array' }, v: unknown, cls: abstract new (...a: never[]) => A, device: { id: number; backend: string },
): A {
  if (v === undefined) throw new KernelArgumentError(kernel, p.name, 'missing');
  if (!(v instanceof cls)) {
    const dev = (v as { device?: { id?: unknown; backend?: unknown } } | null)?.device;
    if (dev && typeof dev.id === 'number' && dev.id !== device.id) {
      throw new KernelArgumentError(kernel, p.name, `the array belongs to device ${dev.id} (${String(dev.backend)}), not this device (${device.id}, ${device.backend})`);
    }
    throw new KernelArgumentError(kernel, p.name, `expected a device array of ${p.dtype}, got ${describe(v)}`);
  }
  if (v.device.id !== device.id) throw new KernelArgumentError(kernel, p.name, `the array belongs to device ${v.device.id}, not this device (${device.id})`);
  if (v.freed) throw new KernelArgumentError(kernel, p.name, 'the array was freed');
  if (v.dtype !== p.dtype) throw new KernelArgumentError(kernel, p.name, `expected ${p.dtype}[], got ${v.dtype}[]`);
  return v;
}

/** Checks a scalar argument against its declared type and range; i64/u64 come back as bigint. */
export function checkScalarArg(kernel: string, p: Param, v: unknown): number | bigint {
  if (v === undefined) throw new KernelArgumentError(kernel, p.name, 'missing');
  const bad = (why: string): never => { throw new KernelArgumentError(kernel, p.name, why); };
  switch (p.dtype) {
    case 'i32':
      if (typeof v !== 'number' || !Number.isInteger(v) || v < -(2 ** 31) || v >= 2 ** 31) bad(`expected an i32, got ${describe(v)}`);
      return v as number;
    case 'u32':
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v >= 2 ** 32) bad(`expected a u32, got ${describe(v)}`);
      return v as number;
    case 'f32':
      if (typeof v !== 'number') bad(`expected an f32 (number), got ${describe(v)}`);
      return v as number;
    case 'f64':
      if (typeof v !== 'number') bad(`expected an f64 (number), got ${describe(v)}`);
      return v as number;
    case 'i64': case 'u64': {
      let b: bigint;
      if (typeof v === 'bigint') b = v;
      else if (typeof v === 'number' && Number.isSafeInteger(v)) b = BigInt(v);
      else return bad(`expected an ${p.dtype} (bigint or safe integer), got ${describe(v)}`);
      const lo = p.dtype === 'i64' ? -(1n << 63n) : 0n;
      const hi = p.dtype === 'i64' ? (1n << 63n) : (1n << 64n);
      if (b < lo || b >= hi) bad(`${b} is out of range for ${p.dtype}`);
      return b;
    }
    default:
      return bad(`unsupported scalar type ${String(p.dtype)}`);
  }
}
