import { defineConfig, configDefaults } from 'vitest/config';
import { fileURLToPath } from 'node:url';
import { probeTestEnvironment, testsToSkip } from './test/support/environment.js';

// WebGPU and browser tests run where their prerequisites are (see test/support/environment.ts);
// elsewhere they are left out with a printed reason, which the summary line repeats.
const skipped = testsToSkip(probeTestEnvironment(fileURLToPath(new URL('.', import.meta.url))));
for (const note of skipped.notes) process.stderr.write(`note: ${note}\n`);
process.env['SIMT_TESTS_NOT_RUN'] = skipped.notes.join('\n');

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...skipped.exclude],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Each test file creates its own devices (worker pools); running files in parallel on a
    // 2-core machine only adds contention, and timing-sensitive launch paths get noisy.
    fileParallelism: false,
    pool: 'forks',
    // gc() for the tests that look for leaks (test/launch-loop.test.ts): without it a heap
    // reading includes whatever garbage the last collection left, and swings by tens of MB.
    execArgv: ['--expose-gc'],
    reporters: ['default', './test/summary-reporter.ts'],
  },
});
