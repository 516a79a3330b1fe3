// The checks of createDevice's options that the device does not otherwise make before it
// starts its workers: every invalid option fails here, with a DeviceOptionError, before any
// worker (thread) or memory exists.

import { DeviceOptionError } from './errors.js';
import { seedProblem } from './schedule/seeds.js';

interface Checked {
  seed?: unknown; launchTimeoutMs?: unknown; spinMicros?: unknown; hostSpinMicros?: unknown; syncWaitMs?: unknown;
}

function show(v: unknown): string {
  return typeof v === 'string' ? `'${v}'` : String(v);
}

export function checkDeviceOptions(o: Checked): void {
  if (o.seed !== undefined) {
    const problem = seedProblem(o.seed);
    if (problem !== undefined) throw new DeviceOptionError('seed', problem);
  }
  if (o.launchTimeoutMs !== undefined && !(typeof o.launchTimeoutMs === 'number' && o.launchTimeoutMs > 0)) {
    throw new DeviceOptionError('launchTimeoutMs', `must be a positive number of ms, got ${show(o.launchTimeoutMs)}`);
  }
  for (const name of ['spinMicros', 'hostSpinMicros', 'syncWaitMs'] as const) {
    const v = o[name];
    if (v !== undefined && !(typeof v === 'number' && Number.isFinite(v) && v >= 0)) {
      throw new DeviceOptionError(name, `must be a finite number >= 0, got ${show(v)}`);
    }
  }
}
