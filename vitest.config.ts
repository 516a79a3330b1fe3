import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Each test file creates its own devices (worker pools); running files in parallel on a
    // 2-core machine only adds contention, and timing-sensitive launch paths get noisy.
    fileParallelism: false,
    pool: 'forks',
    reporters: ['default', './test/summary-reporter.ts'],
  },
});
