// Prints one plain closing line, "tests: N passed, N failed[, N skipped]", after vitest's own
// report, so logs (and CI) show the counts in a runner-independent form.
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let passed = 0, failed = 0, skipped = 0;
    for (const m of modules) {
      for (const t of m.children.allTests()) {
        const s = t.result().state;
        if (s === 'passed') passed++;
        else if (s === 'failed') failed++;
        else skipped++;
      }
      if (m.state() === 'failed' && [...m.children.allTests()].length === 0) failed++;
    }
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
    // Files left out for a missing prerequisite (vitest.config.ts): say which and why, again.
    const notRun = process.env['SIMT_TESTS_NOT_RUN'];
    if (notRun) for (const line of notRun.split('\n')) process.stdout.write(`note: ${line}\n`);
  }
}
