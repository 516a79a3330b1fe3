// Outcome files and their merge. `outcomeFile` turns an exploration (a shard's or a whole one)
// into one JSON document — what `simt explore … --json` prints — that carries everything a
// merge needs: the job and the identity of what it ran (a hash of its kernel modules and of its
// inputs), the options, the shard, the reference, and each outcome with its count and a
// schedule that replays it. `mergeOutcomeFiles` adds the shards of one exploration up: outcomes
// by output with their counts summed, classes recomputed as explore does, runs summed.

import { SimtError, pinErrorNames } from '../errors.js';
import { sha256Hex } from '../hash.js';
import { shippedModule } from '../shippedModule.js';
import type { ExploreResult } from './explore.js';
import { type Outputs, type RaceJob, outputKey } from './job.js';
import { type OutcomeClass, type OutcomeGroup, classify, outcomeClasses, setKey } from './outcomes.js';
import { parseSchedule } from './schedule.js';
import { type Shard, ShardError, checkShard } from './shard.js';

/** The `format` of an outcome file. */
export const OUTCOME_FORMAT = 'simt-explore/1';

/** Outputs as JSON holds them: 64-bit integers (and NaN, ±Infinity) as strings. */
export type PlainOutputs = Record<string, (number | string)[]>;

export interface OutcomeFile {
  format: typeof OUTCOME_FORMAT;
  job: string;
  /** SHA-256 (128 bits, hex) of the job's kernel modules (their content hashes), or of simt's own kernel module (the corpus's). */
  moduleHash: string;
  /** SHA-256 (128 bits, hex) of the job's inputs. */
  inputsHash: string;
  strategy: 'random' | 'pct' | 'exhaustive';
  /** random, pct: the first schedule's seed; null for exhaustive. */
  seed: number | null;
  /** pct: the bug depth; null otherwise. */
  depth: number | null;
  /** The schedules asked for (random, pct: of all shards together; exhaustive: each shard's bound). */
  schedules: number;
  /** The shard this run was (counted from 1), or null. */
  shard: Shard | null;
  /** A merge's shard count, the shards it holds, and the ones missing. */
  merged?: { count: number; shards: number[]; missing: number[] };
  runs: number;
  /** Exhaustive: every interleaving (of the shard's units) was enumerated. */
  exhausted?: boolean;
  /** Time it took (a merge: the shards' times summed). */
  ms: number;
  reference: { schedule: string; steps: number; outputs: PlainOutputs };
  classes: OutcomeGroup[];
  outcomes: { count: number; class: OutcomeClass; differsFromReference: boolean; schedule: string; outputs: PlainOutputs }[];
  found: { index: number; schedule: string } | null;
}

/** A document that is not an outcome file, or files that are not shards of one exploration; names the file. */
export class OutcomeFileError extends SimtError {
  constructor(readonly file: string, problem: string) {
    super(`${file}: ${problem}`);
  }
}
pinErrorNames({ OutcomeFileError });

/** Outputs for JSON: 64-bit integers and non-finite numbers as strings. */
export function plainOutputs(o: Outputs): PlainOutputs {
  const out: PlainOutputs = {};
  for (const [k, v] of Object.entries(o)) out[k] = Array.from(v, (x) => (typeof x === 'number' && Number.isFinite(x) ? x : String(x)));
  return out;
}

/** The inverse of plainOutputs (its keys, as outputKey makes them, are the original outputs'). */
function fromPlain(o: PlainOutputs): Outputs {
  const out: Outputs = {};
  for (const [k, v] of Object.entries(o)) out[k] = v.map((x) => (typeof x === 'number' ? x : /^-?\d+$/.test(x) ? BigInt(x) : Number(x)));
  return out;
}

/** The identity of what a job runs: its kernel modules (or simt's own, `shippedModule()`, which the corpus runs) and its inputs. */
export async function jobIdentity<I>(job: RaceJob<I>, inputs: I): Promise<{ moduleHash: string; inputsHash: string }> {
  const modules = (job.modules?.length ? job.modules : [await shippedModule()]).map((m) => m.id).join('\n');
  const text = JSON.stringify(inputs ?? null, (_k, v: unknown) =>
    typeof v === 'bigint' ? `${v}n`
      : ArrayBuffer.isView(v) && !(v instanceof DataView) ? [v.constructor.name, ...Array.from(v as unknown as ArrayLike<number | bigint>, String)]
        : typeof v === 'number' && !Number.isFinite(v) ? String(v) : v);
  return { moduleHash: await sha256Hex(modules), inputsHash: await sha256Hex(text) };
}

/** The outcome file of an exploration of `job` on `inputs`. */
export async function outcomeFile<I>(job: RaceJob<I>, inputs: I, r: ExploreResult): Promise<OutcomeFile> {
  return {
    format: OUTCOME_FORMAT, job: r.job, ...await jobIdentity(job, inputs),
    strategy: r.strategy, seed: r.strategy === 'exhaustive' ? null : r.seed, depth: r.strategy === 'pct' ? r.depth : null,
    schedules: r.schedules, shard: r.shard ?? null, runs: r.runs, exhausted: r.exhausted, ms: r.ms,
    reference: { schedule: r.reference.schedule, steps: r.reference.steps, outputs: plainOutputs(r.reference.outputs) },
    classes: r.classes,
    outcomes: r.outcomes.map((o) => ({ count: o.count, class: o.class, differsFromReference: o.differsFromReference, schedule: o.schedule, outputs: plainOutputs(o.outputs) })),
    found: r.found ? { index: r.found.index, schedule: r.found.schedule } : null,
  };
}

const isCount = (x: unknown, min = 0): x is number => Number.isSafeInteger(x) && (x as number) >= min;
const isObject = (x: unknown): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x);
const isOutputs = (x: unknown): x is PlainOutputs =>
  isObject(x) && Object.values(x).every((v) => Array.isArray(v) && v.every((e) => typeof e === 'number' || typeof e === 'string'));

/**
 * Checks that a parsed JSON document is an outcome file (OutcomeFileError naming `file` and
 * the first field that is wrong), and every schedule in it a whole schedule string.
 */
export function readOutcomeFile(doc: unknown, file: string): OutcomeFile {
  const fail = (problem: string): never => { throw new OutcomeFileError(file, problem); };
  if (!isObject(doc) || doc.format !== OUTCOME_FORMAT) fail(`not an explore outcome file (no "format": "${OUTCOME_FORMAT}"; simt explore … --json writes one)`);
  const d = doc as unknown as OutcomeFile;
  const field = (name: keyof OutcomeFile, ok: boolean): void => {
    if (ok) return;
    const v = JSON.stringify(d[name]);
    fail(`bad outcome file: field "${name}" is ${v === undefined ? 'missing' : v.length > 60 ? `${v.slice(0, 60)}…` : v}`);
  };
  field('job', typeof d.job === 'string');
  field('moduleHash', typeof d.moduleHash === 'string');
  field('inputsHash', typeof d.inputsHash === 'string');
  field('strategy', ['random', 'pct', 'exhaustive'].includes(d.strategy));
  field('seed', d.seed === null || isCount(d.seed));
  field('depth', d.depth === null || isCount(d.depth, 1));
  field('schedules', isCount(d.schedules, 1));
  field('runs', isCount(d.runs));
  field('ms', typeof d.ms === 'number');
  field('exhausted', d.exhausted === undefined || typeof d.exhausted === 'boolean');
  field('shard', d.shard === null || isObject(d.shard));
  field('merged', d.merged === undefined || (isObject(d.merged) && isCount(d.merged.count, 1) && Array.isArray(d.merged.shards) && d.merged.shards.every((s) => isCount(s, 1) && s <= d.merged!.count)));
  field('reference', isObject(d.reference) && typeof d.reference.schedule === 'string' && isOutputs(d.reference.outputs));
  field('outcomes', Array.isArray(d.outcomes) && d.outcomes.every((o) => isObject(o) && isCount(o.count, 1) && typeof o.schedule === 'string' && isOutputs(o.outputs)));
  field('found', d.found === null || d.found === undefined || (isObject(d.found) && isCount(d.found.index) && typeof d.found.schedule === 'string'));
  if (d.shard) {
    try { checkShard(d.shard); } catch (e) { if (e instanceof ShardError) fail(`bad outcome file: ${e.message}`); throw e; }
  }
  const counted = d.outcomes.reduce((a, o) => a + o.count, 0);
  if (counted !== d.runs) fail(`bad outcome file: its outcomes count ${counted} runs, "runs" says ${d.runs}`);
  const check = (schedule: string, what: string): void => {
    try { parseSchedule(schedule); } catch (e) { fail(`${what}: ${(e as Error).message}`); }
  };
  check(d.reference.schedule, 'the reference\'s schedule');
  d.outcomes.forEach((o, k) => check(o.schedule, `outcome ${k + 1}'s schedule`));
  if (d.found) check(d.found.schedule, 'the found run\'s schedule');
  return d;
}

/** The shards a file holds, and of how many. */
function coverage(d: OutcomeFile): { count: number; shards: number[] } {
  if (d.merged) return { count: d.merged.count, shards: d.merged.shards };
  return d.shard ? { count: d.shard.count, shards: [d.shard.index] } : { count: 1, shards: [1] };
}

/** What must be equal in every shard of one exploration. */
const SAME = ['job', 'moduleHash', 'inputsHash', 'strategy', 'seed', 'depth', 'schedules'] as const;

/**
 * Merges outcome files of one exploration's shards (checked by readOutcomeFile) into the
 * outcome file of their union: outcomes by output, counts and runs summed, each with the
 * schedule from the lowest shard (file) that saw it, classes recomputed; exhaustive is exhausted when
 * no shard is missing and each was. Refused (OutcomeFileError): files of another job, module,
 * inputs, strategy, seed, depth, schedule count, shard count or reference, and a shard given twice.
 * Missing shards are listed in `merged.missing`.
 */
export function mergeOutcomeFiles(files: readonly { file: string; doc: OutcomeFile }[]): OutcomeFile {
  if (files.length === 0) throw new OutcomeFileError('merge', 'no outcome files to merge');
  const head = files[0]!;
  const { count } = coverage(head.doc);
  const holder = new Map<number, string>();
  for (const { file, doc } of files) {
    const not = (what: string): never => { throw new OutcomeFileError(file, `not a shard of the exploration in ${head.file}: ${what}`); };
    for (const f of SAME) if (doc[f] !== head.doc[f]) not(`${f} ${JSON.stringify(doc[f])}, there ${JSON.stringify(head.doc[f])}`);
    const c = coverage(doc);
    if (c.count !== count) not(`split into ${c.count} shard(s), there into ${count}`);
    if (doc.reference.schedule !== head.doc.reference.schedule || JSON.stringify(doc.reference.outputs) !== JSON.stringify(head.doc.reference.outputs)) {
      not('its in-order reference differs (another build of the kernels?)');
    }
    for (const s of c.shards) {
      const other = holder.get(s);
      if (other !== undefined) throw new OutcomeFileError(file, `shard ${s}/${count} is given twice (also in ${other})`);
      holder.set(s, file);
    }
  }
  // In shard order, so that the result does not depend on the order the files are given in.
  const ordered = [...files].sort((a, b) => Math.min(...coverage(a.doc).shards) - Math.min(...coverage(b.doc).shards));
  const reference = fromPlain(head.doc.reference.outputs);
  const refKey = outputKey(reference), refSetKey = setKey(reference);
  const outcomes = new Map<string, OutcomeFile['outcomes'][number]>();
  for (const { doc } of ordered) {
    for (const o of doc.outcomes) {
      const outputs = fromPlain(o.outputs);
      const key = outputKey(outputs);
      const known = outcomes.get(key);
      if (known) known.count += o.count;
      else outcomes.set(key, { count: o.count, class: classify(outputs, refKey, refSetKey, key), differsFromReference: key !== refKey, schedule: o.schedule, outputs: o.outputs });
    }
  }
  // Most frequent first; ties by output, so that the order does not depend on how the shards were grouped.
  const sorted = [...outcomes.entries()].sort(([ka, a], [kb, b]) => b.count - a.count || (ka < kb ? -1 : ka > kb ? 1 : 0)).map(([, o]) => o);
  const shards = [...holder.keys()].sort((a, b) => a - b);
  const missing = Array.from({ length: count }, (_, k) => k + 1).filter((s) => !holder.has(s));
  const found = ordered.map((f) => f.doc.found).filter((f) => !!f).sort((a, b) => a!.index - b!.index)[0] ?? null;
  const d = head.doc;
  return {
    format: OUTCOME_FORMAT, job: d.job, moduleHash: d.moduleHash, inputsHash: d.inputsHash,
    strategy: d.strategy, seed: d.seed, depth: d.depth, schedules: d.schedules, shard: null,
    merged: { count, shards, missing },
    runs: files.reduce((a, f) => a + f.doc.runs, 0),
    exhausted: d.strategy === 'exhaustive' ? missing.length === 0 && files.every((f) => f.doc.exhausted === true) : undefined,
    ms: files.reduce((a, f) => a + f.doc.ms, 0),
    reference: d.reference, classes: outcomeClasses(sorted), outcomes: sorted, found,
  };
}
