/**
 * Profiling a scenario's stack (BENCH_PROFILE=1): its API and workers run with the V8 CPU profiler
 * (bench/cpu-profile-preload.mjs, since Node 20 refuses --cpu-prof in NODE_OPTIONS) and count their
 * SQL statements (bench/sql-trace-preload.mjs); after the stack stopped both are summarised per process.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeProfile, profilesOf, summarizeProfiles } from '../cpu-profile.js';
import { describeSqlTrace } from '../sql-trace.js';

const PRELOAD = fileURLToPath(new URL('../cpu-profile-preload.mjs', import.meta.url));
const SQL_PRELOAD = fileURLToPath(new URL('../sql-trace-preload.mjs', import.meta.url));

export interface StackProfiler {
  /** Extra stack env that turns the profiler on, or nothing when not profiling. */
  env: Record<string, string>;
  /** After the stack stopped: one summary per process (named), over `pages` pages. */
  report(processes: { label: string; pid: number }[], pages: number): string[];
}

export function stackProfiler(enabled: boolean): StackProfiler {
  if (!enabled) return { env: {}, report: () => [] };
  const dir = mkdtempSync(join(tmpdir(), 'trawl-bench-prof-'));
  return {
    env: { NODE_OPTIONS: `--import ${PRELOAD} --import ${SQL_PRELOAD}`, BENCH_CPU_PROF_DIR: dir, BENCH_SQL_TRACE_DIR: dir },
    report(processes, pages) {
      const lines = processes.flatMap(({ label, pid }) => {
        const files = profilesOf(dir, pid);
        const sql = describeSqlTrace(`${label.replace(/ CPU profile$/, '')} SQL`, dir, pid, pages);
        return [...(files.length === 0 ? [`${label}: no profile written`] : describeProfile(label, summarizeProfiles(files), pages)), ...sql];
      });
      lines.push(`profiles kept in ${dir}`);
      return lines;
    },
  };
}
