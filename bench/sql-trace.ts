/** Reads what bench/sql-trace-preload.mjs wrote for one process: SQL statements per page. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export function describeSqlTrace(label: string, dir: string, pid: number, pages: number): string[] {
  const file = join(dir, `sql.${pid}.json`);
  if (!existsSync(file)) return [`${label}: no SQL trace written`];
  const counts = Object.entries(JSON.parse(readFileSync(file, 'utf8')) as Record<string, { n: number; ms: number; bytes?: number }>).sort((a, b) => b[1].ms - a[1].ms);
  const total = counts.reduce((sum, [, { n }]) => sum + n, 0);
  const totalMs = counts.reduce((sum, [, { ms }]) => sum + ms, 0);
  const kB = (bytes = 0) => `${(bytes / 1024 / pages).toFixed(1)} kB`;
  const totalBytes = counts.reduce((sum, [, { bytes = 0 }]) => sum + bytes, 0);
  const perPage = (n: number) => (n / pages).toFixed(2);
  return [
    `${label}: ${total} SQL statements, ${perPage(total)} per page, ${perPage(totalMs)} ms waited per page, ${kB(totalBytes)} sent per page`,
    ...counts.slice(0, 14).map(([text, { n, ms, bytes }]) => `  ${perPage(n)}/page, ${perPage(ms)} ms/page (${(ms / n).toFixed(2)} ms each), ${kB(bytes)}/page: ${text}`),
  ];
}
