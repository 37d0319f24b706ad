/**
 * The bench's table, for the terminal and for bench/RESULTS.md: one row per figure with its
 * median, min and max over the runs, the target and whether the median meets it.
 */
import { cpus, loadavg, totalmem } from 'node:os';
import { spread } from './stats.js';
import type { ResultRow, Verdict } from './scenario.js';

export interface ScenarioReport {
  name: string;
  rows: ResultRow[];
  notes: string[];
  /** Why it could not run, instead of rows. */
  error?: string;
}

function verdictOf(row: ResultRow): Verdict {
  if (!row.target) return 'reported';
  return row.target.ok(spread(row.values).median) ? 'met' : 'missed';
}

function formatNumber(value: number): string {
  const abs = Math.abs(value);
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

export function machineLine(): string {
  const cpu = cpus();
  return `${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown CPU'}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB memory, Node ${process.version}, 1-min load average ${loadavg()[0]!.toFixed(1)} at the end`;
}

export function markdownTable(reports: readonly ScenarioReport[]): string {
  const lines = ['| scenario | figure | median | min | max | runs | target | result |', '|---|---|---|---|---|---|---|---|'];
  for (const report of reports) {
    if (report.error) {
      lines.push(`| ${report.name} | not run: ${report.error.replaceAll('|', '/').split('\n')[0]} | | | | | | |`);
      continue;
    }
    for (const row of report.rows) {
      const { median, min, max } = spread(row.values);
      const unit = row.unit === '×' ? '×' : ` ${row.unit}`;
      lines.push(
        `| ${report.name} | ${row.metric} | ${formatNumber(median)}${unit} | ${formatNumber(min)} | ${formatNumber(max)} | ${row.values.length} | ${row.target?.text ?? ''} | ${verdictOf(row)} |`,
      );
    }
  }
  return lines.join('\n');
}

export function notesSection(reports: readonly ScenarioReport[]): string {
  return reports
    .filter((r) => r.notes.length > 0)
    .map((r) => [`${r.name}:`, ...r.notes.map((n) => `- ${n}`)].join('\n'))
    .join('\n\n');
}
