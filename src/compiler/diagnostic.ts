// A compile problem at a source location: the public type of KernelCompileError's diagnostics.
// The same shape as the front end's; declared apart so that simt's public types never load
// frontend.ts's, which name AssemblyScript's own declarations (those fail `tsc --strict`
// without skipLibCheck in a consumer's project).
export interface Diagnostic {
  file: string;
  line: number;
  column: number;
  message: string;
}
