// The API docs (`npm run docs`, typedoc from src/index.ts into docs/api/) build without a
// warning: typedoc.json treats warnings as errors (broken {@link}s, unknown code languages, …).
import { expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

const ROOT = resolve(import.meta.dirname, '..');

it('typedoc converts the public API without warnings', async () => {
  const bin = resolve(ROOT, 'node_modules/typedoc/bin/typedoc');
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [bin, '--emit', 'none'], { cwd: ROOT, timeout: 120_000 });
  expect(`${stdout}${stderr}`).not.toMatch(/\[(warning|error)\]/);
}, 150_000);
