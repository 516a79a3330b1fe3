// The race tools on a classic bug: counter++ by 8 threads of 2 blocks without an atomic.
// explore() runs many schedules and groups them by output; racecheck() names the racing accesses.
//   node examples/race-explore.js
import { race } from 'simt';

export async function main(log = console.log) {
  const job = race.findJob('lostUpdate');
  const ex = await race.explore(job, undefined, { schedules: 100, seed: 1 });
  log(`${job.name}: ${job.summary}`);
  log(`${ex.runs} random schedules gave ${ex.outcomes.length} distinct outputs:`);
  for (const o of ex.outcomes) log(`  ${String(o.count).padStart(3)} × ${Object.entries(o.outputs).map(([k, v]) => `${k}=${Array.from(v).join(',')}`).join(' ')}`);
  const rc = await race.racecheck(job);
  for (const r of rc.reports.slice(0, 3)) log(`  ${r.kind}: ${r.message}`);
  if (ex.outcomes.length < 2 || rc.reports.length === 0) throw new Error('expected the lost update to show');
  return { outcomes: ex.outcomes.length, reports: rc.reports.length };
}

if (globalThis.process?.argv?.[1] === decodeURIComponent(new URL(import.meta.url).pathname)) await main();
