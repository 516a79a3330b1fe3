// A user job (defineJob, src/race/) as a cross-check job: the same spec the race tools run under
// a schedule runs here on real devices. Its buffers are allocated on each device, its launches go
// to `device.launch` in the job's order (a device runs them in issue order, like a CUDA stream, so
// the reads of the outputs that follow see them), and its `compare` rules say how the outputs of
// the backends must agree; an output it does not name is compared exactly.
import type { Device } from '../device.js';
import type { GpuDevice } from '../deviceApi.js';
import type { DType } from '../dtypes.js';
import { LaunchConfigError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import type { DeviceArray } from '../memory/deviceArray.js';
import type { JobInputs } from '../race/defineJob.js';
import type { JobContext, RaceJob } from '../race/job.js';
import type { ThreadLaunch } from '../race/threadRunner.js';
import type { Job, OutputValue } from './types.js';

/** The cross-check job that runs `job` (its inputs are the spec's buffer contents, or those given). */
export function userJob(job: RaceJob<JobInputs>): Job<JobInputs> {
  return {
    name: job.name,
    description: job.summary,
    defaultSize: 0,
    edgeSizes: [],
    generate: () => job.inputs(),
    compare: () => ({ ...job.compare }),
    defaultRule: { kind: 'exact' },
    async run(device: GpuDevice, inputs: JobInputs): Promise<Record<string, OutputValue>> {
      for (const m of job.modules ?? []) await device.load(m);
      const arrays: DeviceArray[] = [];
      const launches: Promise<unknown>[] = [];
      let failure: unknown;
      const ctx: JobContext = {
        // The race tools' context type names the wasm/serial Device; a job reaches the device only through buffers and launches.
        device: device as unknown as Device,
        async buffer<D extends DType>(_name: string, dtype: D, data: ArrayLike<number | bigint> | number): Promise<DeviceArray<D>> {
          const a = typeof data === 'number' ? device.alloc(dtype, data) : await device.upload(dtype, data as never);
          arrays.push(a as DeviceArray);
          if (typeof data === 'number') await a.fill((dtype === 'i64' || dtype === 'u64' ? 0n : 0) as never);
          return a as DeviceArray<D>;
        },
        launch(l: ThreadLaunch): void {
          if (typeof l.kernel === 'string') {
            throw new LaunchConfigError(`job '${job.name}': '${l.kernel}' is one of simt's race-corpus thread kernels, which run only under the race tools; crossCheck runs compiled kernels`);
          }
          // Issued now, awaited after the job's reads: the first failure is the job's error.
          const p = device.launch(l.kernel as Kernel, { grid: l.grid, block: l.block, sharedBytes: l.sharedBytes }, l.args as never);
          launches.push(p.catch((e: unknown) => { failure ??= e; }));
        },
      };
      try {
        const outputs = await job.run(ctx, inputs);
        await Promise.all(launches);
        if (failure !== undefined) throw failure;
        return outputs as Record<string, OutputValue>;
      } finally {
        await Promise.allSettled(launches);
        for (const a of arrays) if (!a.freed) a.free();
      }
    },
  };
}
