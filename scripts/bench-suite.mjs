#!/usr/bin/env node
// Runs one benchmark suite module directly: node scripts/bench-suite.mjs webgpu [--quick] [--json]
// (after npm run build). Prints the suite's log lines, then its records (a JSON array with --json).
const [name = 'webgpu', ...flags] = process.argv.slice(2);
const { suite } = await import(new URL(`../dist/bench/${name}.bench.js`, import.meta.url).href);
const records = await suite.run({ quick: flags.includes('--quick'), log: (l) => console.error(l) });
if (flags.includes('--json')) console.log(JSON.stringify(records));
else console.table(records.map(({ name, impl, size, grid, ms, gbps, gpuMs, gpuGbps }) => ({ name, impl, size, grid, ms, gbps, gpuMs, gpuGbps })));
