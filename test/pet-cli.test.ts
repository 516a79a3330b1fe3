import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { readNpy, writeNpy } from '../src/io/npy.js';
import { generatePetData } from '../src/jobs/pet/generate.js';
import { coincidencesReference, convertReference, sortByTimeReference } from '../src/jobs/pet/reference.js';

function capture() {
  const out: string[] = [], err: string[] = [];
  return { io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l), tty: false }, out, err };
}

describe('simt pet', () => {
  it('--generate writes .npy outputs and a JSON summary that match the reference', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'simt-pet-'));
    const c = capture();
    expect(await main(['pet', '--generate', '5000', '--seed', '4', '--out', dir, '--json'], c.io)).toBe(0);
    const summary = JSON.parse(c.out.join('\n'));
    const ds = generatePetData({ nFrames: 5000, seed: 4 });
    const ref = sortByTimeReference(convertReference(ds.frames, ds.geometry, ds.positionTable, ds.energyTable)).singles;
    const pairs = coincidencesReference(ref);
    expect(summary.frames).toBe(5000);
    expect(summary.singles).toBe(ref.time.length);
    expect(summary.pairs).toBe(pairs.count);
    expect(Array.from(readNpy(readFileSync(join(dir, 'sorted_time.npy'))).data as Float64Array)).toEqual(Array.from(ref.time));
    const pc = readNpy(readFileSync(join(dir, 'pairs_crystal.npy')));
    expect(pc.shape).toEqual([pairs.count, 2]);
    expect((pc.data as Uint32Array)[0]).toBe(pairs.crystal0[0]);
    expect((pc.data as Uint32Array)[1]).toBe(pairs.crystal1[0]);
  });

  it('--input reads raw frames with .npy and raw tables', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'simt-pet-'));
    const ds = generatePetData({ nFrames: 3000, seed: 8 });
    writeFileSync(join(dir, 'frames.bin'), ds.frames);
    writeFileSync(join(dir, 'pos.npy'), writeNpy(ds.positionTable));
    writeFileSync(join(dir, 'energy.bin'), new Uint8Array(ds.energyTable.buffer));
    const c = capture();
    expect(await main(['pet', '--input', join(dir, 'frames.bin'), '--position-table', join(dir, 'pos.npy'),
      '--energy-table', join(dir, 'energy.bin'), '--energy-window', 'none', '--backend', 'serial', '--json'], c.io)).toBe(0);
    const summary = JSON.parse(c.out.join('\n'));
    expect(summary.singles).toBe(3000);
    expect(summary.backend).toBe('serial');
  });

  it('reports truncated frames and mismatched tables as errors (exit 1), usage errors with exit 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'simt-pet-'));
    const ds = generatePetData({ nFrames: 100, seed: 8 });
    writeFileSync(join(dir, 'frames.bin'), ds.frames.subarray(0, 100 * 16 - 5));
    writeFileSync(join(dir, 'pos.npy'), writeNpy(ds.positionTable));
    writeFileSync(join(dir, 'energy.npy'), writeNpy(ds.energyTable));
    writeFileSync(join(dir, 'energy-short.npy'), writeNpy(ds.energyTable.subarray(10)));
    let c = capture();
    expect(await main(['pet', '--input', join(dir, 'frames.bin'), '--position-table', join(dir, 'pos.npy'), '--energy-table', join(dir, 'energy.npy')], c.io)).toBe(1);
    expect(c.err.join('\n')).toMatch(/TruncatedFrameError/);
    writeFileSync(join(dir, 'frames.bin'), ds.frames);
    c = capture();
    expect(await main(['pet', '--input', join(dir, 'frames.bin'), '--position-table', join(dir, 'pos.npy'), '--energy-table', join(dir, 'energy-short.npy')], c.io)).toBe(1);
    expect(c.err.join('\n')).toMatch(/TableError/);
    c = capture();
    expect(await main(['pet'], c.io)).toBe(2);
    c = capture();
    expect(await main(['pet', '--generate', '10', '--energy-window', '1,2,3'], c.io)).toBe(2);
  });
});
