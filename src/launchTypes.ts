// The types of launch arguments, from a kernel's parameter spec: `launch(vecMax, config, args)`
// type-checks `args` against `vecMax`'s declaration { A: 'f32[]', B: 'f32[]', N: 'i32' }.
//   - By name ({ A, B, N }): every parameter must be there with its own type, and nothing else.
//   - In order ([A, B, N]): the count must match, and each element must be a type some
//     parameter takes (TypeScript cannot see the declaration's key order, so the position of
//     each type is checked when the launch runs).
// A kernel whose spec is not known statically (Kernel<Record<string, ParamSpec>>) takes any
// KernelArgs, checked when it runs.
import type { DType } from './dtypes.js';
import type { KernelArgs } from './deviceApi.js';
import type { ParamSpec } from './kernel.js';
import type { DeviceArray } from './memory/deviceArray.js';

/** The value a parameter takes: a device array of its dtype, or a number (i64/u64: a bigint or a safe integer). */
export type ArgOf<S extends ParamSpec> =
  S extends `${infer D extends DType}[]` ? DeviceArray<D> : S extends 'i64' | 'u64' ? bigint | number : number;

/** Arguments by parameter name. */
export type NamedLaunchArgs<P extends Record<string, ParamSpec>> = { readonly [K in keyof P]: ArgOf<P[K]> };

type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
type LastOf<U> = UnionToIntersection<U extends unknown ? () => U : never> extends () => infer R ? R : never;
/** A tuple with one element per member of U (in an order TypeScript chooses: only its length is used). */
type TupleOf<U, Acc extends unknown[] = []> = [U] extends [never] ? Acc : TupleOf<Exclude<U, LastOf<U>>, [LastOf<U>, ...Acc]>;
type Fill<T extends unknown[], X> = { [I in keyof T]: X };

/** Arguments in parameter order: as many as the kernel has parameters, each of a type one of them takes. */
export type PositionalLaunchArgs<P extends Record<string, ParamSpec>> = Readonly<Fill<TupleOf<keyof P>, ArgOf<P[keyof P]>>>;

/** The launch arguments of a kernel declared with spec P. */
export type LaunchArgs<P extends Record<string, ParamSpec>> =
  string extends keyof P ? KernelArgs : NamedLaunchArgs<P> | PositionalLaunchArgs<P>;

/**
 * The rest parameter of `launch` after the config: the arguments, which may be left out only
 * for a kernel without parameters (or one whose spec is not known statically).
 */
export type LaunchArgsParam<P extends Record<string, ParamSpec>> =
  string extends keyof P ? [args?: KernelArgs] : [keyof P] extends [never] ? [args?: LaunchArgs<P>] : [args: LaunchArgs<P>];
