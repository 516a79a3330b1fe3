// `simt pet`: the PET job of seed 001 (convert → time sort → coincidences) on generated or
// raw frames; outputs as .npy, a JSON summary on stdout, a progress bar on stderr (TTY only).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from '../command.js';
import { choiceOption, inputOption, intOption, numberOption, seedOption, stringOption, UsageError, workersOption } from '../args.js';
import { opt } from '../options.js';
import { progressBar, progressEnabled } from '../progress.js';
import { createDevice } from '../../device.js';
import { MAX_DEVICE_BYTES } from '../../layout.js';
import { writeNpy, type NpyData } from '../../io/npy.js';
import { InputFileError, OutputFileError, OutputSet, inputFileSize, readInputFile, readJsonFile, readNpyFile } from '../files.js';
import { DEFAULT_GEOMETRY, type PetGeometry } from '../../jobs/pet/geometry.js';
import { generatePetData } from '../../jobs/pet/generate.js';
import { petMemoryBytes, runPet, type PetTables } from '../../jobs/pet/run.js';
import { FRAME_BYTES } from '../../jobs/pet/format.js';

const USAGE = 'simt pet (--generate N [--seed S] | <frames.bin> --position-table pos.npy|.bin --energy-table energy.npy|.bin)\n' +
  '         [--geometry geometry.json] [--energy-window LOW,HIGH|none] [--window TICKS] [--out DIR]\n' +
  '         [--backend wasm|serial] [--workers N] [--schedule-seed S] [--json] [--quiet]';

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

const OUTPUT_NAMES = [
  'singles_crystal.npy', 'singles_energy.npy', 'singles_time.npy', 'sorted_crystal.npy', 'sorted_energy.npy', 'sorted_time.npy',
  'pairs_index.npy', 'pairs_crystal.npy', 'pairs_energy.npy', 'pairs_time.npy',
];

const INPUT_ERRORS = new Set(['TruncatedFrameError', 'TableError', 'GeometryError', 'PetFrameError', 'CoincidenceOptionsError', 'PetOptionsError']);

export const pet: Command = {
  name: 'pet',
  summary: 'PET pipeline (seed 001): raw frames → singles → time sort → coincidence pairs',
  usage: USAGE,
  options: [
    { name: 'generate', value: 'N', description: 'run on N generated frames (with their tables and the default geometry)' },
    opt.seed(),
    opt.input('FILE', 'raw frames (16 bytes each)'),
    { name: 'position-table', value: 'FILE', description: 'crystal position table (.npy u1 or raw bytes); needed with an input file' },
    { name: 'energy-table', value: 'FILE', description: 'energy calibration table (.npy f4 or raw float32); needed with an input file' },
    { name: 'geometry', value: 'FILE', default: 'the built-in geometry', description: 'scanner geometry (JSON)' },
    { name: 'energy-window', value: 'LOW,HIGH|none', default: 'the job\'s', description: 'keep singles with energy in [LOW, HIGH]' },
    { name: 'window', value: 'TICKS', default: 'the job\'s', description: 'coincidence time window' },
    { name: 'out', short: 'o', value: 'DIR', description: 'write singles, sorted singles and pairs as .npy into DIR' },
    opt.backend(),
    opt.workers(),
    opt.scheduleSeed(),
    opt.json('one JSON document: { backend, workers, frames, singles, pairs, mergePasses, launches, timingsMs, framesPerSecond, outputs }'),
    opt.quiet(),
  ],
  examples: ['simt pet --generate 1000000 --out pet-out/', 'simt pet frames.bin --position-table pos.npy --energy-table energy.npy --json'],
  async run(args, io) {
    // Every option, input size and output is checked before anything is read, generated or run.
    const o = args.options;
    const input = inputOption(args);
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
    const backend = choiceOption(o, 'backend', ['wasm', 'serial'] as const, 'wasm');
    const workers = workersOption(o);
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
    const bar = progressBar(1, progressEnabled(o) && nFrames >= 1 << 20);
    try {
      let r: Awaited<ReturnType<typeof runPet>>;
      try {
        r = await runPet(dev, frames, geometry, tables, { energyWindow, window, onProgress: (s, d, t) => bar.update(s.padEnd(13), d, t) });
      } catch (e) {
        // The job's typed input errors (truncated frames, tables or geometry that do not match, bad options).
        if (e instanceof Error && INPUT_ERRORS.has(e.name)) { bar.done(); io.err(`simt pet: ${e.name}: ${e.message}`); return 1; }
        throw e;
      }
      bar.done();
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
      const summary = {
        backend: dev.backend, workers: dev.workers, frames: r.frames, singles: r.sorted.time.length, pairs: r.pairs.count,
        mergePasses: r.mergePasses, launches: r.launches.length,
        timingsMs: Object.fromEntries(Object.entries(r.timings).map(([k, v]) => [k, round(v)])),
        framesPerSecond: r.frames > 0 ? Math.round(r.frames / ((r.timings.convert + r.timings.sort + r.timings.coincidences) / 1000)) : 0,
        outputs: written,
      };
      if (o.json) io.out(JSON.stringify(summary));
      else {
        io.out(`pet: ${r.frames} frames → ${summary.singles} singles → ${summary.pairs} coincidence pairs`);
        io.out(`  convert ${r.timings.convert.toFixed(1)} ms, sort ${r.timings.sort.toFixed(1)} ms (${r.mergePasses} merge passes), ` +
          `coincidences ${r.timings.coincidences.toFixed(1)} ms on ${dev.backend} (${dev.workers} worker${dev.workers === 1 ? '' : 's'}): ` +
          `${(summary.framesPerSecond / 1e6).toFixed(2)} M frames/s`);
        io.out(written.length ? `  wrote ${written.length} files into ${outDir}` : '  (no --out: nothing written)');
      }
      return 0;
    } finally {
      bar.done();
      await dev.destroy();
    }
  },
};
