// What the WebGPU and browser tests need, probed once when vitest loads its config: a WebGPU
// adapter (Dawn through the `webgpu` package; without a GPU, Debian chromium's SwiftShader) and a
// Chromium binary. When one is missing the files that need it are not run, and the reason is
// printed with the command that installs it — unless SIMT_REQUIRE_WEBGPU=1 (CI), where they run
// and fail.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export interface Availability { ok: boolean; reason: string }
export interface TestEnvironment { webgpu: Availability; chromium: Availability; required: boolean }

export const SETUP_COMMAND = 'sudo bash scripts/ci-webgpu-setup.sh';

const PROBE = `
const { openWebGpu } = await import(process.argv[1]);
try { const g = await openWebGpu(); await g.destroy(); console.log(JSON.stringify({ ok: true, reason: '' })); }
catch (e) { console.log(JSON.stringify({ ok: false, reason: String(e && e.message || e).split('\\n')[0] })); }
process.exit(0);
`;

/** Opens (and closes) a WebGPU device in a child process, so a crash in Dawn cannot take vitest down. */
export function probeWebGpu(root: string): Availability {
  const gpuModule = join(root, 'dist', 'src', 'webgpu', 'gpu.js');
  if (!existsSync(gpuModule)) return { ok: false, reason: 'simt is not built (npm run build)' };
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', PROBE, gpuModule], { encoding: 'utf8', timeout: 60_000 });
  const line = (r.stdout ?? '').trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(line) as Availability;
  } catch {
    return { ok: false, reason: `the WebGPU probe ended without an answer (${r.signal ?? `exit ${r.status}`}): ${(r.stderr ?? '').trim().split('\n')[0] ?? ''}` };
  }
}

export function probeChromium(): Availability {
  const bin = process.env['SIMT_CHROMIUM'] ?? '/usr/bin/chromium';
  return existsSync(bin) ? { ok: true, reason: '' } : { ok: false, reason: `no Chromium at ${bin} (SIMT_CHROMIUM names another binary)` };
}

export function probeTestEnvironment(root: string): TestEnvironment {
  return { webgpu: probeWebGpu(root), chromium: probeChromium(), required: process.env['SIMT_REQUIRE_WEBGPU'] === '1' };
}

/** Test files that need WebGPU, or Chromium. */
export const WEBGPU_TESTS = 'test/webgpu-*.test.ts';
export const BROWSER_TESTS = 'test/browser-*.test.ts';

/** The files not to run here, and one line per reason. */
export function testsToSkip(env: TestEnvironment): { exclude: string[]; notes: string[] } {
  if (env.required) return { exclude: [], notes: [] };
  const exclude: string[] = [];
  const notes: string[] = [];
  if (!env.webgpu.ok) {
    exclude.push(WEBGPU_TESTS);
    notes.push(`WebGPU tests (${WEBGPU_TESTS}) not run: ${env.webgpu.reason}`);
  }
  if (!env.chromium.ok) {
    exclude.push(BROWSER_TESTS);
    notes.push(`browser tests (${BROWSER_TESTS}) not run: ${env.chromium.reason}`);
  }
  if (notes.length) notes.push(`\`${SETUP_COMMAND}\` (Debian/Ubuntu) installs what they need; SIMT_REQUIRE_WEBGPU=1 makes their absence a failure`);
  return { exclude, notes };
}
