// `simt pet`: the PET job of seed 001 (convert → time sort → coincidences) on generated or
// raw frames; outputs as .npy, a JSON summary on stdout, a progress bar on stderr (TTY only).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from '../command.js';
import { intOption, seedOption, stringOption, UsageError } from '../args.js';
import { createDevice } from '../../device.js';
import { readNpy, writeNpy, type NpyData } from '../../io/npy.js';
import { DEFAULT_GEOMETRY, type PetGeometry } from '../../jobs/pet/geometry.js';
import { generatePetData } from '../../jobs/pet/generate.js';
import { petMemoryBytes, runPet, type PetTables } from '../../jobs/pet/run.js';
import { FRAME_BYTES } from '../../jobs/pet/format.js';

const USAGE = 'simt pet (--generate N [--seed S] | --input frames.bin --position-table pos.npy|.bin --energy-table energy.npy|.bin)\n' +
  '         [--geometry geometry.json] [--energy-window LOW,HIGH|none] [--window TICKS] [--out DIR]\n' +
  '         [--backend wasm|serial] [--workers N] [--schedule-seed S]';

function readTable(path: string, kind: 'u1' | 'f4'): Uint8Array | Float32Array {
  const bytes = new Uint8Array(readFileSync(path));
  if (path.endsWith('.npy')) {
    const a = readNpy(bytes);
    if (a.dtype !== kind) throw new UsageError(`${path}: expected dtype ${kind}, got ${a.dtype}`);
    return a.data as Uint8Array | Float32Array;
  }
  if (kind === 'u1') return bytes;
  if (bytes.length % 4 !== 0) throw new UsageError(`${path}: raw float32 table of ${bytes.length} bytes (not a multiple of 4)`);
  const f = new Float32Array(bytes.length / 4);
  new Uint8Array(f.buffer).set(bytes);
  return f;
}

function progressBar(enabled: boolean): { update(stage: string, done: number, total: number): void; end(): void } {
  if (!enabled) return { update() {}, end() {} };
  let last = '';
  return {
    update(stage, done, total) {
      const width = 30;
      const f = total > 0 ? Math.min(1, done / total) : 1;
      const line = `\r${stage.padEnd(13)} [${'#'.repeat(Math.round(f * width)).padEnd(width, '.')}] ${done}/${total}`;
      if (line !== last) { process.stderr.write(line); last = line; }
    },
    end() { if (last) process.stderr.write('\n'); },
  };
}

const INPUT_ERRORS = new Set(['TruncatedFrameError', 'TableError', 'GeometryError', 'PetFrameError', 'CoincidenceOptionsError', 'PetOptionsError']);

export const pet: Command = {
  name: 'pet',
  summary: 'PET pipeline (seed 001): raw frames → singles → time sort → coincidence pairs',
  usage: USAGE,
  async run(args, io) {
    const o = args.options;
    const generate = o.generate === undefined ? undefined : intOption(o, 'generate', 0);
    const input = stringOption(o, 'input');
    if ((generate === undefined) === (input === undefined)) throw new UsageError('give exactly one of --generate N or --input frames.bin');
    const geometryFile = stringOption(o, 'geometry');
    let geometry: PetGeometry = geometryFile ? JSON.parse(readFileSync(geometryFile, 'utf8')) as PetGeometry : { ...DEFAULT_GEOMETRY };
    let frames: Uint8Array;
    let tables: PetTables;
    const posFile = stringOption(o, 'position-table');
    const energyFile = stringOption(o, 'energy-table');
    if (generate !== undefined) {
      if (!Number.isSafeInteger(generate) || generate < 0) throw new UsageError(`--generate needs a frame count >= 0, got ${generate}`);
      const ds = generatePetData({ nFrames: generate, seed: seedOption(o, 'seed') ?? 1, geometry });
      geometry = ds.geometry;
      frames = ds.frames;
      tables = { positionTable: ds.positionTable, energyTable: ds.energyTable };
    } else {
      if (!posFile || !energyFile) throw new UsageError('--input needs --position-table and --energy-table');
      frames = new Uint8Array(readFileSync(input!));
      tables = { positionTable: new Uint8Array(0), energyTable: new Float32Array(0) };
    }
    if (posFile) tables.positionTable = readTable(posFile, 'u1') as Uint8Array;
    if (energyFile) tables.energyTable = readTable(energyFile, 'f4') as Float32Array;
    let energyWindow: [number, number] | null | undefined;
    const ew = stringOption(o, 'energy-window');
    if (ew === 'none') energyWindow = null;
    else if (ew !== undefined) {
      const parts = ew.split(',').map(Number);
      if (parts.length !== 2 || parts.some((x) => !Number.isFinite(x))) throw new UsageError(`--energy-window needs LOW,HIGH or none, got ${ew}`);
      energyWindow = [parts[0]!, parts[1]!];
    }
    const window = o.window === undefined ? undefined : intOption(o, 'window', 0);
    const backend = (stringOption(o, 'backend') ?? 'wasm') as 'wasm' | 'serial';
    if (backend !== 'wasm' && backend !== 'serial') throw new UsageError(`--backend must be wasm or serial, got ${String(backend)}`);
    const workers = o.workers === undefined ? undefined : intOption(o, 'workers', 1);
    const scheduleSeed = seedOption(o, 'schedule-seed');
    const nFrames = Math.floor(frames.length / FRAME_BYTES);
    const memoryBytes = Math.min(4 * 2 ** 30 - 65536, Math.ceil((petMemoryBytes(nFrames, geometry) + (64 << 20)) / 65536) * 65536);
    const dev = await createDevice({ backend, workers, memoryBytes, seed: scheduleSeed });
    const bar = progressBar(!!process.stderr.isTTY && nFrames >= 1 << 20);
    try {
      let r: Awaited<ReturnType<typeof runPet>>;
      try {
        r = await runPet(dev, frames, geometry, tables, { energyWindow, window, onProgress: (s, d, t) => bar.update(s, d, t) });
      } catch (e) {
        // The job's typed input errors (truncated frames, tables or geometry that do not match, bad options).
        if (e instanceof Error && INPUT_ERRORS.has(e.name)) { bar.end(); io.err(`simt pet: ${e.name}: ${e.message}`); return 1; }
        throw e;
      }
      bar.end();
      const outDir = stringOption(o, 'out');
      const written: string[] = [];
      if (outDir) {
        mkdirSync(outDir, { recursive: true });
        const put = (name: string, data: NpyData, shape?: number[]) => {
          const p = join(outDir, name);
          writeFileSync(p, writeNpy(data, shape));
          written.push(p);
        };
        const interleave = <T extends Uint32Array | Float32Array | Float64Array>(a: T, b: T): T => {
          const out = new (a.constructor as new (n: number) => T)(2 * a.length);
          for (let k = 0; k < a.length; k++) { out[2 * k] = a[k]!; out[2 * k + 1] = b[k]!; }
          return out;
        };
        put('singles_crystal.npy', r.singles.crystal); put('singles_energy.npy', r.singles.energy); put('singles_time.npy', r.singles.time);
        put('sorted_crystal.npy', r.sorted.crystal); put('sorted_energy.npy', r.sorted.energy); put('sorted_time.npy', r.sorted.time);
        const P = r.pairs.count;
        put('pairs_index.npy', r.pairs.index0);
        put('pairs_crystal.npy', interleave(r.pairs.crystal0, r.pairs.crystal1), [P, 2]);
        put('pairs_energy.npy', interleave(r.pairs.energy0, r.pairs.energy1), [P, 2]);
        put('pairs_time.npy', interleave(r.pairs.time0, r.pairs.time1), [P, 2]);
      }
      const round = (x: number) => Math.round(x * 100) / 100;
      io.out(JSON.stringify({
        backend: dev.backend, workers: dev.workers, frames: r.frames, singles: r.sorted.time.length, pairs: r.pairs.count,
        mergePasses: r.mergePasses, launches: r.launches.length,
        timingsMs: Object.fromEntries(Object.entries(r.timings).map(([k, v]) => [k, round(v)])),
        framesPerSecond: r.frames > 0 ? Math.round(r.frames / ((r.timings.convert + r.timings.sort + r.timings.coincidences) / 1000)) : 0,
        outputs: written,
      }, null, 2));
      return 0;
    } finally {
      bar.end();
      await dev.destroy();
    }
  },
};
