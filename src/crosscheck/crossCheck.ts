// crossCheck(job, inputs, { backends }): runs one job on every backend and compares each output
// of the others with the first (the reference) by the job's rule for it. A user job (defineJob)
// brings its own inputs: crossCheck(job, { backends }), or crossCheck(job, inputs, { backends }).
import { createDevice } from '../device.js';
import type { BackendName, GpuDevice } from '../deviceApi.js';
import { compareOutput } from './compare.js';
import type { BackendRun, CrossCheckOptions, CrossCheckReport, Job, OutputReport, OutputValue } from './types.js';
import { isRaceJob, type JobInputs } from '../race/defineJob.js';
import type { RaceJob } from '../race/job.js';
import { userJob } from './userJob.js';

function describeDevice(d: GpuDevice): string {
  const info = (d as { adapterInfo?: { description?: string; vendor?: string; architecture?: string } }).adapterInfo;
  if (d.backend === 'webgpu') return info?.description || `${info?.vendor ?? ''} ${info?.architecture ?? ''}`.trim() || 'webgpu';
  return `${d.backend}, ${d.workers} worker${d.workers === 1 ? '' : 's'}`;
}

export async function crossCheck<I>(job: Job<I>, inputs: I, options?: CrossCheckOptions): Promise<CrossCheckReport>;
/** A user job (defineJob) on the inputs of its spec. */
export async function crossCheck(job: RaceJob<JobInputs>, options?: CrossCheckOptions): Promise<CrossCheckReport>;
/** A user job on other contents of its buffers (keyed by buffer name, as `explore` takes them). */
export async function crossCheck(job: RaceJob<JobInputs>, inputs: JobInputs, options: CrossCheckOptions): Promise<CrossCheckReport>;
export async function crossCheck(job: Job<unknown> | RaceJob<JobInputs>, ...rest: unknown[]): Promise<CrossCheckReport> {
  if (isRaceJob(job)) {
    const j = userJob(job);
    return rest.length >= 2
      ? checkJob(j, rest[0] as JobInputs, rest[1] as CrossCheckOptions | undefined)
      : checkJob(j, j.generate(0, 0), rest[0] as CrossCheckOptions | undefined);
  }
  return checkJob(job, rest[0], rest[1] as CrossCheckOptions | undefined);
}

async function checkJob<I>(job: Job<I>, inputs: I, options: CrossCheckOptions = {}): Promise<CrossCheckReport> {
  const backends = [...(options.backends ?? ['wasm', 'webgpu'])] as BackendName[];
  if (backends.length < 2) throw new RangeError(`crossCheck needs at least two backends, got ${backends.join(', ') || 'none'}`);
  if (new Set(backends).size !== backends.length) throw new RangeError(`crossCheck: backend listed twice in ${backends.join(', ')}`);
  const examples = options.examples ?? 5;
  const created: GpuDevice[] = [];
  const results: Record<string, OutputValue>[] = [];
  const runs: BackendRun[] = [];
  try {
    for (const backend of backends) {
      let device = options.devices?.[backend];
      if (!device) {
        // 'webgpu' without an adapter throws WebGpuUnavailableError here: never a silent fallback.
        device = await createDevice(backend === 'wasm' && options.workers !== undefined ? { backend, workers: options.workers } : { backend });
        created.push(device);
      }
      if (device.backend !== backend) throw new RangeError(`crossCheck: the device given for ${backend} is a ${device.backend} device`);
      const t0 = performance.now();
      results.push(await job.run(device, inputs));
      runs.push({ backend, device: describeDevice(device), elapsedMs: performance.now() - t0 });
    }
  } finally {
    for (const d of created) await d.destroy();
  }
  const rules = job.compare(inputs);
  const outputs: OutputReport[] = [];
  const ref = results[0]!;
  for (let k = 1; k < backends.length; k++) {
    const other = results[k]!;
    const names = new Set([...Object.keys(ref), ...Object.keys(other)]);
    for (const name of names) {
      const rule = rules[name] ?? job.defaultRule;
      if (!rule) throw new RangeError(`job ${job.name}: output '${name}' has no comparison rule`);
      if (!(name in ref) || !(name in other)) {
        outputs.push({
          output: name, backend: backends[k]!, rule: rule.kind, equal: false, lengths: [0, 0], differences: 1, first: [],
          note: `only ${name in ref ? backends[0] : backends[k]} produced it`,
        });
        continue;
      }
      outputs.push(compareOutput(name, backends[k]!, rule, ref[name]!, other[name]!, examples));
    }
  }
  return { job: job.name, reference: backends[0]!, backends, equal: outputs.every((o) => o.equal), runs, outputs };
}

/** The report as JSON-safe data: bigints and non-finite numbers as strings. */
export function reportToJson(r: CrossCheckReport): unknown {
  return JSON.parse(JSON.stringify(r, (_k, v: unknown) => {
    if (typeof v === 'bigint') return v.toString();
    if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
    return v;
  }));
}
