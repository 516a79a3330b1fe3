// `simt pet`: the PET job of seed 001 (convert → time sort → coincidences) on generated or
// raw frames; outputs as .npy, a JSON summary on stdout, a progress bar on stderr (TTY only).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from '../command.js';
import { intOption, numberOption, seedOption, stringOption, UsageError } from '../args.js';
import { createDevice } from '../../device.js';
import { MAX_DEVICE_BYTES } from '../../layout.js';
import { writeNpy, type NpyData } from '../../io/npy.js';
import { InputFileError, OutputFileError, OutputSet, inputFileSize, readInputFile, readJsonFile, readNpyFile } from '../files.js';
import { DEFAULT_GEOMETRY, type PetGeometry } from '../../jobs/pet/geometry.js';
import { generatePetData } from '../../jobs/pet/generate.js';
import { petMemoryBytes, runPet, type PetTables } from '../../jobs/pet/run.js';
import { FRAME_BYTES } from '../../jobs/pet/format.js';

const USAGE = 'simt pet (--generate N [--seed S] | --input frames.bin --position-table pos.npy|.bin --energy-table energy.npy|.bin)\n' +
  '         [--geometry geometry.json] [--energy-window LOW,HIGH|none] [--window TICKS] [--out DIR]\n' +
  '         [--backend wasm|serial] [--workers N] [--schedule-seed S]';

const TABLE_LIMIT = { bytes: 1 << 30, why: 'a table of more than 1 GiB does not fit the device' };

function readTable(path: string, kind: 'u1' | 'f4'): Uint8Array | Float32Array {
  if (path.endsWith('.npy')) {
    const a = readNpyFile(path, TABLE_LIMIT);
    if (a.dtype !== kind) throw new InputFileError(path, `expected dtype ${kind}, got ${a.dtype}`);
    return a.data as Uint8Array | Float32Array;
  }
  const bytes = readInputFile(path, TABLE_LIMIT);
  if (kind === 'u1') return bytes;
  if (bytes.length % 4 !== 0) throw new InputFileError(path, `raw float32 table of ${bytes.length} bytes (not a multiple of 4)`);
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

const OUTPUT_NAMES = [
  'singles_crystal.npy', 'singles_energy.npy', 'singles_time.npy', 'sorted_crystal.npy', 'sorted_energy.npy', 'sorted_time.npy',
  'pairs_index.npy', 'pairs_crystal.npy', 'pairs_energy.npy', 'pairs_time.npy',
];

const INPUT_ERRORS = new Set(['TruncatedFrameError', 'TableError', 'GeometryError', 'PetFrameError', 'CoincidenceOptionsError', 'PetOptionsError']);

export const pet: Command = {
  name: 'pet',
  summary: 'PET pipeline (seed 001): raw frames → singles → time sort → coincidence pairs',
  usage: USAGE,
  async run(args, io) {
    // Every option, input size and output is checked before anything is read, generated or run.
    const o = args.options;
    const input = stringOption(o, 'input');
    if ((o.generate === undefined) === (input === undefined)) throw new UsageError('give exactly one of --generate N or --input frames.bin');
    const geometryFile = stringOption(o, 'geometry');
    const posFile = stringOption(o, 'position-table');
    const energyFile = stringOption(o, 'energy-table');
    if (input !== undefined && (!posFile || !energyFile)) throw new UsageError('--input needs --position-table and --energy-table');
    let energyWindow: [number, number] | null | undefined;
    const ew = stringOption(o, 'energy-window');
    if (ew === 'none') energyWindow = null;
    else if (ew !== undefined) {
      const parts = ew.split(',').map(Number);
      if (parts.length !== 2 || parts.some((x) => !Number.isFinite(x))) throw new UsageError(`--energy-window needs LOW,HIGH or none, got ${ew}`);
      energyWindow = [parts[0]!, parts[1]!];
    }
    const window = o.window === undefined ? undefined : numberOption(o, 'window', 0, { min: 0 });
    const backend = (stringOption(o, 'backend') ?? 'wasm') as 'wasm' | 'serial';
    if (backend !== 'wasm' && backend !== 'serial') throw new UsageError(`--backend must be wasm or serial, got ${String(backend)}`);
    const workers = o.workers === undefined ? undefined : intOption(o, 'workers', 1, { min: 1, max: 256 });
    const scheduleSeed = seedOption(o, 'schedule-seed');
    const seed = seedOption(o, 'seed') ?? 1;
    const outDir = stringOption(o, 'out');
    const outputs = new OutputSet([input, posFile, energyFile, geometryFile].filter((p): p is string => p !== undefined), '--out');
    if (outDir) {
      try {
        mkdirSync(outDir, { recursive: true });
      } catch (e) {
        throw new OutputFileError(outDir, `cannot create the output directory: ${(e as Error).message.split('\n')[0]}`);
      }
      for (const name of OUTPUT_NAMES) outputs.plan(join(outDir, name));
    }
    let geometry: PetGeometry = geometryFile ? readJsonFile(geometryFile) as PetGeometry : { ...DEFAULT_GEOMETRY };
    const fits = (n: number): boolean => petMemoryBytes(n, geometry) + (64 << 20) <= MAX_DEVICE_BYTES;
    let maxFrames = 0;
    for (let step = 2 ** 30; step >= 1; step /= 2) if (fits(maxFrames + step)) maxFrames += step;
    let frames: Uint8Array;
    let tables: PetTables;
    if (input === undefined) {
      const generate = intOption(o, 'generate', 0, { min: 0, max: maxFrames });
      const ds = generatePetData({ nFrames: generate, seed, geometry });
      geometry = ds.geometry;
      frames = ds.frames;
      tables = { positionTable: ds.positionTable, energyTable: ds.energyTable };
    } else {
      const size = inputFileSize(input);
      if (Math.floor(size / FRAME_BYTES) > maxFrames) {
        throw new InputFileError(input, `${Math.floor(size / FRAME_BYTES)} frames do not fit the largest device, ${MAX_DEVICE_BYTES / 2 ** 20} MiB (at most ${maxFrames} with this geometry)`);
      }
      frames = readInputFile(input);
      tables = { positionTable: new Uint8Array(0), energyTable: new Float32Array(0) };
    }
    if (posFile) tables.positionTable = readTable(posFile, 'u1') as Uint8Array;
    if (energyFile) tables.energyTable = readTable(energyFile, 'f4') as Float32Array;
    const nFrames = Math.floor(frames.length / FRAME_BYTES);
    const memoryBytes = Math.ceil((petMemoryBytes(nFrames, geometry) + (64 << 20)) / 65536) * 65536;
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
      const written: string[] = [];
      if (outDir) {
        const put = (name: string, data: NpyData, shape?: number[]) => {
          const p = join(outDir, name);
          outputs.put(p, writeNpy(data, shape));
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
        outputs.commit();
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
