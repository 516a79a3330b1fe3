// `simt crosscheck <job> [--size N] [--seed S] [--backends wasm,webgpu] [--json]`: runs one job
// on several backends and compares every output (src/crosscheck/). `--module kernels.simt.json|
// kernels.ts --job job.mjs` runs the user's own job (defineJob, as `simt racecheck` takes it) on
// the user's kernels, each output compared by the rule the job declares. Exit 0 when all agree,
// 1 when an output differs, 2 for a usage error.
import type { Command } from '../command.js';
import { intOption, seedOption, stringOption, UsageError, workersOption, type ParsedArgs } from '../args.js';
import { opt } from '../options.js';
import type { BackendName } from '../../deviceApi.js';
import { crossCheck, jobs, reportToJson } from '../../crosscheck/index.js';
import type { CrossCheckReport, OutputReport } from '../../crosscheck/index.js';

const BACKENDS: readonly BackendName[] = ['wasm', 'serial', 'webgpu'];
/** The largest --size: 2^26 elements (256 MiB of f32) leaves room on the 1 GiB devices crossCheck opens. */
const MAX_SIZE = 1 << 26;

function fmt(v: unknown): string {
  if (v === undefined) return '—';
  if (typeof v === 'number' && Object.is(v, -0)) return '-0';
  return String(v);
}

function printOutput(o: OutputReport, ref: string, out: (l: string) => void): void {
  const head = `  ${o.output.padEnd(14)} ${o.backend.padEnd(7)} [${o.rule}]`;
  if (o.equal) {
    out(`${head}: equal (${o.lengths[0]} element${o.lengths[0] === 1 ? '' : 's'}` +
      `${o.worst !== undefined ? `, worst ${o.rule.startsWith('within bound') ? `${o.worst.toPrecision(3)} of the bound` : `${o.worst} ULP`}` : ''})`);
    return;
  }
  out(`${head}: ${o.differences} difference${o.differences === 1 ? '' : 's'} of ${Math.max(...o.lengths)}${o.note ? ` (${o.note})` : ''}`);
  if (o.first.length > 0) {
    out(`      ${'index'.padStart(10)}  ${ref.padStart(24)}  ${o.backend.padStart(24)}`);
    for (const d of o.first) out(`      ${String(d.index).padStart(10)}  ${fmt(d.values[0]).padStart(24)}  ${fmt(d.values[1]).padStart(24)}`);
  }
}

/** `size`/`seed` describe a generated input; a user job's inputs are its own (both undefined). */
export function printReport(r: CrossCheckReport, size: number | undefined, seed: number | undefined, out: (l: string) => void): void {
  out(`crosscheck ${r.job}: ${size === undefined ? 'the job\'s buffers' : `size ${size}, seed ${seed}`}, reference ${r.reference}`);
  for (const run of r.runs) out(`  ${run.backend.padEnd(7)} ${run.elapsedMs.toFixed(1).padStart(9)} ms  ${run.device}`);
  for (const o of r.outputs) printOutput(o, r.reference, out);
  out(r.equal ? 'all outputs agree' : 'OUTPUTS DIFFER');
}

export const crosscheck: Command = {
  name: 'crosscheck',
  summary: 'run a job on wasm and webgpu (or other backends) and compare every output',
  usage: 'simt crosscheck <job> [--size N] [--seed S] [--backends wasm,webgpu] [--examples K] [--workers N] [--json] | simt crosscheck --module <kernels.simt.json|kernels.ts> --job <job.mjs> [--backends …] [--json] | simt crosscheck --list',
  options: [
    { name: 'module', value: 'FILE', description: 'a kernel module (.simt.json from simt build) or a kernel source (.ts, compiled on the fly) for --job' },
    { name: 'job', value: 'FILE', description: 'an ES module whose default export is a defineJob job (or a spec, or a function of the module); its `compare` declares each output\'s rule' },
    { name: 'size', value: 'N', default: 'the job\'s own', description: 'elements of the generated input' },
    opt.seed(),
    { name: 'backends', value: 'LIST', default: 'wasm,webgpu', description: 'backends to run, comma-separated (wasm, serial, webgpu); the first is the reference' },
    { name: 'examples', value: 'K', default: '5', description: 'differing elements listed per output' },
    opt.workers('workers of the wasm device'),
    { name: 'list', description: 'list the jobs' },
    opt.json('one JSON document: { size, seed, job, reference, equal, runs, outputs }'),
  ],
  examples: ['simt crosscheck countModules --size 100000 --backends wasm,serial', 'simt crosscheck --module histogram.simt.json --job job.mjs'],
  details: 'Exit status 0 when every output agrees, 1 when one differs. Job names ignore case, \'-\' and \'_\'.',
  jobNames: async () => [...jobs.keys()],
  async run(args, io) {
    const name = args.positionals[0];
    if (stringOption(args.options, 'job') !== undefined || stringOption(args.options, 'module') !== undefined) return runUserJob(args, io);
    if (args.options.list || !name) {
      const print = args.options.list ? io.out : io.err;
      if (!args.options.list) print('simt crosscheck: which job? known jobs:');
      for (const j of jobs.values()) print(`  ${j.name.padEnd(14)} ${j.description}`);
      return args.options.list ? 0 : 2;
    }
    const job = jobs.get(name);
    if (!job) throw new UsageError(`no job '${name}' (known: ${[...jobs.keys()].join(', ')})`);
    // Checked before anything is generated: the devices have 1 GiB each.
    const size = intOption(args.options, 'size', job.defaultSize, { min: 0, max: MAX_SIZE });
    const seed = seedOption(args.options, 'seed') ?? 1;
    const examples = intOption(args.options, 'examples', 5, { min: 0, max: 10_000 });
    const workers = workersOption(args.options);
    const list = backendList(args.options);
    const inputs = job.generate(size, seed);
    const report = await crossCheck(job, inputs, { backends: list as BackendName[], examples, workers });
    if (args.options.json) io.out(JSON.stringify({ size, seed, ...(reportToJson(report) as object) }));
    else printReport(report, size, seed, io.out);
    return report.equal ? 0 : 1;
  },
};

function backendList(options: ParsedArgs['options']): BackendName[] {
  const list = (stringOption(options, 'backends') ?? 'wasm,webgpu').split(',').map((s) => s.trim()).filter(Boolean);
  for (const b of list) if (!BACKENDS.includes(b as BackendName)) throw new UsageError(`unknown backend '${b}' (use ${BACKENDS.join(', ')})`);
  if (list.length < 2) throw new UsageError('--backends needs at least two backends');
  return list as BackendName[];
}

/** `--module … --job …`: the user's job on the user's kernels, on its own buffers. */
async function runUserJob(args: ParsedArgs, io: Parameters<Command['run']>[1]): Promise<number> {
  const jobPath = stringOption(args.options, 'job');
  const modulePath = stringOption(args.options, 'module');
  if (jobPath === undefined) throw new UsageError('--module needs --job <job.mjs>: the job says which kernels to launch on which buffers');
  if (args.positionals.length > 0) throw new UsageError(`give a job name or --job, not both (got '${args.positionals[0]}' and --job ${jobPath})`);
  for (const o of ['size', 'seed', 'list']) {
    if (args.options[o] !== undefined) throw new UsageError(`--${o} is for simt's own jobs; a --job brings its own buffers`);
  }
  const examples = intOption(args.options, 'examples', 5, { min: 0, max: 10_000 });
  const workers = workersOption(args.options);
  const backends = backendList(args.options);
  const { loadModuleFile, loadJobFile } = await import('../../race/jobFile.js');
  const module = modulePath === undefined ? undefined : await loadModuleFile(modulePath);
  const job = await loadJobFile(jobPath, module);
  const report = await crossCheck(job, { backends, examples, workers });
  if (args.options.json) io.out(JSON.stringify(reportToJson(report)));
  else printReport(report, undefined, undefined, io.out);
  return report.equal ? 0 : 1;
}
