// A process that forgets device.destroy() must still exit (workers never hold it open), and
// one with a launch in flight must not exit before the launch ends.
import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const entry = fileURLToPath(new URL('../dist/src/index.js', import.meta.url));

function runScript(code: string): Promise<{ code: number | null; stdout: string; ms: number }> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = execFile(process.execPath, ['--input-type=module', '-e', code], { timeout: 20_000 }, (err, stdout) => {
      resolve({ code: err ? (err as NodeJS.ErrnoException & { code?: number }).code as unknown as number ?? 1 : 0, stdout, ms: Date.now() - t0 });
    });
    void child;
  });
}

describe('process lifetime', () => {
  it('exits without destroy()', async () => {
    const r = await runScript(`
      import { createDevice, kernels } from ${JSON.stringify(entry)};
      const dev = await createDevice({ memoryBytes: 16 << 20, workers: 2 });
      const out = dev.alloc('i32', 6);
      await dev.launch(kernels.writeIndices, { grid: 1, block: 1 }, [out]);
      console.log('launched');
    `);
    expect(r.stdout.trim()).toBe('launched');
    expect(r.code).toBe(0);
    expect(r.ms).toBeLessThan(15_000);
  });

  it('stays alive until an in-flight launch finishes', async () => {
    const r = await runScript(`
      import { createDevice, kernels } from ${JSON.stringify(entry)};
      const dev = await createDevice({ memoryBytes: 16 << 20, workers: 1 });
      const out = dev.alloc('i32', 1);
      dev.launch(kernels.spin, { grid: 1, block: 1 }, [300_000_000, out]).then(() => console.log('finished'));
    `);
    expect(r.stdout.trim()).toBe('finished');
    expect(r.code).toBe(0);
  });
});
