// The range proof for the WGSL form: the proof the block form runs per block (rangeProof.ts,
// computed once by the front end), kept as text in the kernel's WGSL metadata for the host to
// evaluate once per launch (src/launchProof.ts). Where it holds for every block, the runtime sets the pipeline
// constant `sx_proven`, and the proven accesses' checks (wgslArrays.ts) fold away in the GPU's
// compiler: the shader keeps one text, and the launch picks its form.

import type { AstNode } from './ast.js';
import type { FrontEndAnalysis, FunctionInfo } from './frontend.js';
import { arrayLength } from './frontend.js';
import { compileLaunchProof, type LaunchProofMeta } from '../launchProof.js';

/** A kernel's launch proof and the accesses it covers; undefined when no access is proven. */
export function wgslLaunchProof(analysis: FrontEndAnalysis, fn: FunctionInfo): { meta: LaunchProofMeta; proven: ReadonlySet<AstNode> } | undefined {
  // The proof the block form computed for its proven copy (frontend.ts): the same statements.
  const proof = analysis.rangeProof(fn);
  if (!proof) return undefined;
  // The names the proof reads, by parameter index (the order of the kernel's parameters).
  const scalars: Record<string, number> = {}, lengths: Record<string, number> = {};
  fn.decls.filter((d) => d.param).forEach((d, k) => {
    if (d.param === 'scalar') scalars[d.outName] = k;
    else lengths[arrayLength(d)] = k;
  });
  const meta: LaunchProofMeta = { lines: proof.body, scalars, lengths };
  // The host must be able to read every statement; test/compiler-launch-proof.test.ts checks
  // that it can for every kernel simt ships, so a proof the host cannot read only costs speed.
  try {
    compileLaunchProof(meta);
  } catch {
    return undefined;
  }
  return { meta, proven: proof.proven };
}
