// Files for the CLI fault tests: valid and malformed .npy inputs in a fresh temporary folder.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { writeNpy } from '../../src/io/npy.js';
import type { ChildResult } from './child.js';

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'simt-faults-'));
}

/** An .npy file whose header dict is `dict` (padded as numpy pads it) followed by `data`. */
export function npyWithHeader(dict: string, data: Uint8Array): Uint8Array {
  const total = Math.ceil((10 + dict.length + 1) / 64) * 64;
  const header = dict + ' '.repeat(total - 10 - dict.length - 1) + '\n';
  const out = new Uint8Array(total + data.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, (total - 10) & 0xff, (total - 10) >> 8]);
  for (let k = 0; k < header.length; k++) out[10 + k] = header.charCodeAt(k);
  out.set(data, total);
  return out;
}

/** STS digis (channel, time) as u4[n, 2], each channel time-ordered. */
export function digis(n: number): Uint32Array {
  const w = new Uint32Array(2 * n);
  for (let i = 0; i < n; i++) { w[2 * i] = i % 16; w[2 * i + 1] = 100 + i; }
  return w;
}

/** Malformed variants of a digi .npy, by name. */
export function malformedNpys(dir: string): Record<string, string> {
  const good = writeNpy(digis(64), [64, 2]);
  const raw = new Uint8Array(digis(64).buffer);
  const files: Record<string, Uint8Array> = {
    truncated: good.subarray(0, good.length - 17),
    'truncated header': good.subarray(0, 40),
    fortran: npyWithHeader(`{'descr': '<u4', 'fortran_order': True, 'shape': (64, 2), }`, raw),
    'big-endian': npyWithHeader(`{'descr': '>u4', 'fortran_order': False, 'shape': (64, 2), }`, raw),
    '3-D': npyWithHeader(`{'descr': '<u4', 'fortran_order': False, 'shape': (8, 8, 2), }`, raw),
    'not npy': new TextEncoder().encode('hello, world, this is not a numpy file'),
    'wrong dtype': writeNpy(new Float32Array(128), [64, 2]),
  };
  const paths: Record<string, string> = {};
  for (const [name, bytes] of Object.entries(files)) {
    const p = join(dir, `${name.replace(/[^a-z0-9]+/gi, '-')}.npy`);
    writeFileSync(p, bytes);
    paths[name] = p;
  }
  return paths;
}

/** A CLI failure as a user should see it: `code`, one line on stderr matching `line`, no stack. */
export function expectOneLineError(r: ChildResult, code: number, line: RegExp): void {
  expect(r.code, r.stderr).toBe(code);
  const lines = r.stderr.trim().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(line);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}
