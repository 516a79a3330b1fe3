// The CLI's files: inputs read with one-line typed errors that name the file, and outputs
// written atomically — every output goes to a temporary name in its target directory and is
// renamed into place only when all of them are complete, so a failure leaves no partial set
// (and no temporary file) behind. Targets are checked before any work: an output that would
// overwrite an input, or that cannot be written, is refused before anything runs.
import { closeSync, fstatSync, openSync, readSync, renameSync, statSync, unlinkSync, writeSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { SimtError } from '../errors.js';
import { NpyFormatError, readNpy, type NpyArray } from '../io/npy.js';
import { UsageError } from './args.js';

/** An input file that cannot be read, or whose content is not what the command needs. */
export class InputFileError extends SimtError {
  constructor(readonly path: string, problem: string) {
    super(`${path}: ${problem}`);
  }
}

/** An output that cannot be written. Nothing of the command's outputs was left in place. */
export class OutputFileError extends SimtError {
  constructor(readonly path: string, problem: string) {
    super(`${path}: ${problem}`);
  }
}

/** What went wrong in a file system call, in a few words ("no such file or directory"). */
function why(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  switch (err?.code) {
    case 'ENOENT': return 'no such file or directory';
    case 'EISDIR': return 'is a directory, not a file';
    case 'ENOTDIR': return 'a part of the path is not a directory';
    case 'EACCES': case 'EPERM': return 'permission denied';
    case 'ENOSPC': return 'no space left on the device';
    case 'EROFS': return 'read-only file system';
    case 'EDQUOT': return 'disk quota exceeded';
    default: return (err?.message ?? String(e)).split('\n')[0]!;
  }
}

/**
 * Reads a whole input file. A directory, a missing or unreadable file, or (with `maxBytes`) a
 * file too large for the command is an InputFileError, raised before the file is read.
 */
export function readInputFile(path: string, maxBytes?: { bytes: number; why: string }): Uint8Array {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    throw new InputFileError(path, why(e));
  }
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw new InputFileError(path, 'is a directory, not a file');
    if (maxBytes && st.isFile() && st.size > maxBytes.bytes) {
      throw new InputFileError(path, `${st.size} bytes is too large: ${maxBytes.why}`);
    }
    const size = st.isFile() ? st.size : 0;
    const chunks: Uint8Array[] = [];
    let total = 0;
    let buf = new Uint8Array(Math.max(size, 1 << 16));
    for (;;) {
      if (total === buf.length) {
        chunks.push(buf);
        buf = new Uint8Array(buf.length);
        total = 0;
      }
      const got = readSync(fd, buf, total, buf.length - total, null);
      if (got === 0) break;
      total += got;
      if (maxBytes && chunks.length * buf.length + total > maxBytes.bytes) {
        throw new InputFileError(path, `more than ${maxBytes.bytes} bytes is too large: ${maxBytes.why}`);
      }
    }
    if (chunks.length === 0) return buf.subarray(0, total);
    const out = new Uint8Array(chunks.reduce((a, c) => a + c.length, 0) + total);
    let at = 0;
    for (const c of chunks) { out.set(c, at); at += c.length; }
    out.set(buf.subarray(0, total), at);
    return out;
  } catch (e) {
    if (e instanceof InputFileError) throw e;
    throw new InputFileError(path, why(e));
  } finally {
    closeSync(fd);
  }
}

/** Size of an input file in bytes (InputFileError when it is missing or a directory). */
export function inputFileSize(path: string): number {
  let st;
  try {
    st = statSync(path);
  } catch (e) {
    throw new InputFileError(path, why(e));
  }
  if (st.isDirectory()) throw new InputFileError(path, 'is a directory, not a file');
  return st.size;
}

/** Reads an .npy input; a malformed one is an InputFileError naming the file and the problem. */
export function readNpyFile(path: string, maxBytes?: { bytes: number; why: string }): NpyArray {
  const bytes = readInputFile(path, maxBytes);
  try {
    return readNpy(bytes);
  } catch (e) {
    if (e instanceof NpyFormatError) throw new InputFileError(path, `not a usable .npy file: ${e.message}`);
    throw e;
  }
}

/** Reads a JSON input; malformed JSON is an InputFileError. */
export function readJsonFile(path: string): unknown {
  const text = new TextDecoder().decode(readInputFile(path));
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new InputFileError(path, `not valid JSON: ${(e as Error).message}`);
  }
}

/** The file's identity (device and inode) when it exists, to tell whether two paths are one file. */
function identity(path: string): string | undefined {
  try {
    const st = statSync(path);
    return `${st.dev}:${st.ino}`;
  } catch {
    return undefined;
  }
}

function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    try {
      return join(realpathSync(dirname(path)), basename(path));
    } catch {
      return resolve(path);
    }
  }
}

/**
 * A set of outputs written atomically. `plan` the target paths before any work (they are
 * checked then: none may be an input, each directory must exist and each target must be a
 * file or absent), `put` their contents as they are produced, and `commit` when all are there.
 */
export class OutputSet {
  private readonly targets: string[] = [];
  private readonly contents = new Map<string, Uint8Array>();

  /**
   * @param inputs the command's input files: an output that is one of them is refused
   * @param flag the option the outputs come from, for messages (`--out`, `--out-dir`)
   */
  constructor(private readonly inputs: readonly string[], private readonly flag: string) {}

  /** Declares an output and checks it now (UsageError if it is an input, OutputFileError if it cannot be written). */
  plan(path: string): void {
    const id = identity(path);
    const canon = canonical(path);
    for (const input of this.inputs) {
      if ((id !== undefined && id === identity(input)) || canon === canonical(input)) {
        throw new UsageError(`${this.flag}: the output ${path} is the input ${input}; refusing to overwrite it`);
      }
    }
    if (this.targets.includes(path)) throw new UsageError(`${this.flag}: ${path} is named twice as an output`);
    let dir;
    try {
      dir = statSync(dirname(path) || '.');
    } catch (e) {
      throw new OutputFileError(path, `cannot write here: its directory ${dirname(path)}: ${why(e)}`);
    }
    if (!dir.isDirectory()) throw new OutputFileError(path, `cannot write here: ${dirname(path)} is not a directory`);
    try {
      const st = statSync(path);
      if (st.isDirectory()) throw new OutputFileError(path, 'is a directory; an output must be a file');
    } catch (e) {
      if (e instanceof OutputFileError) throw e;
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw new OutputFileError(path, why(e));
    }
    this.targets.push(path);
  }

  put(path: string, bytes: Uint8Array): void {
    if (!this.targets.includes(path)) throw new Error(`internal: output ${path} was not planned`);
    this.contents.set(path, bytes);
  }

  get paths(): readonly string[] { return this.targets; }

  /**
   * Writes every output under a temporary name beside its target, then renames them all into
   * place. Targets that exist and are not regular files (a device such as /dev/null or
   * /dev/full, a pipe) are written directly, after every temporary file is complete. On any
   * failure the temporary files are removed and an OutputFileError names the output.
   */
  commit(): void {
    const temps: [tmp: string, target: string][] = [];
    const direct: string[] = [];
    const tag = `${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
    try {
      for (const target of this.targets) {
        const bytes = this.contents.get(target);
        if (!bytes) throw new Error(`internal: output ${target} has no content`);
        let special = false;
        try { special = !statSync(target).isFile(); } catch { /* absent: a new file */ }
        if (special) { direct.push(target); continue; }
        const tmp = join(dirname(target), `.${basename(target)}.${tag}.tmp`);
        temps.push([tmp, target]);
        writeWhole(tmp, bytes, 'wx');
      }
      for (const target of direct) writeWhole(target, this.contents.get(target)!, 'w');
      for (const [tmp, target] of temps) renameSync(tmp, target);
    } catch (e) {
      for (const [tmp] of temps) { try { unlinkSync(tmp); } catch { /* not created */ } }
      if (e instanceof OutputFileError) throw e;
      throw new OutputFileError(this.failedTarget(e), `${why(e)}; no output was written`);
    }
  }

  private failedTarget(e: unknown): string {
    const p = (e as NodeJS.ErrnoException).path;
    if (!p) return this.targets[0] ?? '(output)';
    const name = basename(p).replace(/^\./, '').replace(/\.[0-9]+-[0-9a-z]+\.tmp$/, '');
    return this.targets.find((t) => basename(t) === name) ?? p;
  }
}

function writeWhole(path: string, bytes: Uint8Array, flags: 'wx' | 'w'): void {
  let fd: number;
  try {
    fd = openSync(path, flags, 0o644);
  } catch (e) {
    (e as NodeJS.ErrnoException).path ??= path;
    throw e;
  }
  try {
    for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at);
  } catch (e) {
    (e as NodeJS.ErrnoException).path ??= path;
    throw e;
  } finally {
    closeSync(fd);
  }
}
