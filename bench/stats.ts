/** Summaries of repeated measurements. */

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** Nearest-rank percentile (p in 0–100) of a non-empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new Error('percentile of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1]!;
}

export function spread(values: readonly number[]): { median: number; min: number; max: number } {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}
