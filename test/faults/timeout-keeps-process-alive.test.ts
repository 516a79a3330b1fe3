// A launch ended by its timeout or its AbortSignal, in a script with nothing else keeping Node
// alive, must reject with its typed error and let the code after the await run (here: print,
// destroy, print again) — not end the process early with exit code 13 and nothing printed.
import { describe, expect, it } from 'vitest';
import { runScript } from './child.js';

describe('a launch ended by timeout or abort settles in a bare script', () => {
  it('timeoutMs: rejects with KernelTimeoutError, then destroy() completes', async () => {
    const r = await runScript(`
      import { createDevice, kernels, KernelTimeoutError } from ENTRY;
      const dev = await createDevice({ memoryBytes: 16 << 20, workers: 2 });
      const out = dev.alloc('i32', 1);
      try {
        await dev.launch(kernels.spin, { grid: 2, block: 1, timeoutMs: 200 }, [-1, out]);
        console.log('resolved');
      } catch (e) { console.log('rejected', e instanceof KernelTimeoutError, e.name); }
      await dev.destroy();
      console.log('destroyed');
    `);
    expect(r.stdout.trim().split('\n')).toEqual(['rejected true KernelTimeoutError', 'destroyed']);
    expect(r.code).toBe(0);
  });

  it('AbortSignal: rejects with LaunchAbortedError, and the device still works', async () => {
    const r = await runScript(`
      import { createDevice, kernels, LaunchAbortedError } from ENTRY;
      const dev = await createDevice({ memoryBytes: 16 << 20, workers: 2 });
      const out = dev.alloc('i32', 6);
      const ac = new AbortController();
      setTimeout(() => ac.abort('stop'), 100);
      try {
        await dev.launch(kernels.spin, { grid: 2, block: 1, signal: ac.signal }, [-1, out]);
        console.log('resolved');
      } catch (e) { console.log('rejected', e instanceof LaunchAbortedError, e.message); }
      const s = await dev.launch(kernels.writeIndices, { grid: 1, block: 1 }, [out]);
      console.log('after', s.blocks);
      await dev.destroy();
      console.log('destroyed');
    `);
    expect(r.stdout.trim().split('\n')).toEqual(['rejected true kernel spin: launch aborted: stop', 'after 1', 'destroyed']);
    expect(r.code).toBe(0);
  });

  it('an already-aborted signal rejects at once, in a bare script too', async () => {
    const r = await runScript(`
      import { createDevice, kernels } from ENTRY;
      const dev = await createDevice({ memoryBytes: 16 << 20, workers: 1 });
      const out = dev.alloc('i32', 1);
      await dev.launch(kernels.spin, { grid: 1, block: 1, signal: AbortSignal.abort('early') }, [-1, out])
        .catch((e) => console.log(e.name));
      console.log('end');
    `);
    expect(r.stdout.trim().split('\n')).toEqual(['LaunchAbortedError', 'end']);
    expect(r.code).toBe(0);
  });
});
