/**
 * `npm run bench [-- <scenario>...]`: runs the scenarios (all by default), prints the table and
 * appends it, with the date and the machine, to bench/RESULTS.md.
 *
 *   BENCH_RUNS=3      timed runs per figure
 *   BENCH_PAGES=N     pages per crawl (overrides each scenario's default)
 *   BENCH_CALLS=N     sequential calls per latency run (overrides each scenario's default)
 *   BENCH_PROFILE=1   run the stack under --cpu-prof and report where the time went; the figures
 *                     are then skewed by the profiler and are not appended to RESULTS.md
 *   BENCH_VERBOSE=1   echo the stack's output
 */
import { appendFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { machineLine, markdownTable, notesSection, type ScenarioReport } from './report.js';
import type { BenchSettings } from './scenario.js';
import { SCENARIOS } from './scenarios/index.js';

const RESULTS_FILE = fileURLToPath(new URL('RESULTS.md', import.meta.url));

function positiveInt(name: string, fallback: number | undefined): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${raw}`);
  return value;
}

async function main(): Promise<void> {
  const names = process.argv.slice(2);
  const unknown = names.filter((n) => !SCENARIOS.some((s) => s.name === n));
  if (unknown.length > 0) {
    throw new Error(`unknown scenario(s) ${unknown.join(', ')}; known: ${SCENARIOS.map((s) => s.name).join(', ')}`);
  }
  const selected = names.length > 0 ? SCENARIOS.filter((s) => names.includes(s.name)) : SCENARIOS;
  const settings: BenchSettings = {
    runs: positiveInt('BENCH_RUNS', 3)!,
    pages: positiveInt('BENCH_PAGES', undefined),
    calls: positiveInt('BENCH_CALLS', undefined),
    profile: process.env.BENCH_PROFILE === '1',
    log: (line) => console.log(line),
  };
  const startedAt = new Date();
  const reports: ScenarioReport[] = [];
  for (const scenario of selected) {
    console.log(`\n== ${scenario.name}: ${scenario.description}`);
    const t0 = performance.now();
    try {
      const result = await scenario.run(settings);
      reports.push({ name: scenario.name, ...result });
    } catch (err) {
      console.error(err);
      reports.push({ name: scenario.name, rows: [], notes: [], error: err instanceof Error ? err.message : String(err) });
    }
    console.log(`   (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  }

  const table = markdownTable(reports);
  const notes = notesSection(reports);
  console.log(`\n${table}\n\n${notes}`);
  if (settings.profile) {
    console.log('\n(profiled run: not appended to bench/RESULTS.md)');
    return;
  }
  const overrides = ['BENCH_RUNS', 'BENCH_PAGES', 'BENCH_CALLS'].filter((n) => process.env[n]).map((n) => `${n}=${process.env[n]}`);
  appendFileSync(
    RESULTS_FILE,
    `\n## ${startedAt.toISOString()}: ${selected.map((s) => s.name).join(', ')}${overrides.length ? ` (${overrides.join(' ')})` : ''}\n\n` +
      `Machine: ${machineLine()}\n\n${table}\n${notes ? `\n${notes}\n` : ''}`,
  );
  console.log(`\nappended to ${RESULTS_FILE}`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
