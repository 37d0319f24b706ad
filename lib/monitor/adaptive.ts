/**
 * Adaptive monitors (a Trawl extension, `schedule.adaptive`): each URL of a scrape target is
 * checked at the pace it changes at, between the schedule's minimum and maximum interval.
 *
 * Time is counted in ticks: each check the monitor runs is one, at the minimum interval. A URL's
 * changes are a Poisson process whose rate per tick has a Gamma(1, 1) prior (one change per tick,
 * the cautious guess for a page not yet seen): after `changes` changes over `span` ticks between
 * its first and last check, the posterior mean rate is (changes + 1) / (span + 1). The URL is due
 * again once 1 / rate ticks have passed since its last check, never sooner than the next tick and
 * never later than the maximum interval. A page that changes at every check keeps being checked at
 * every tick; one that never changes is checked at ticks 0, 1, 3, 7, 15, 31 … until the maximum.
 * A long quiet history would make that estimate slow to notice a page that starts changing, so a
 * check that finds a change also halves the interval it was checked at: a page that wakes up is
 * back to every tick within a few checks.
 *
 * Counting ticks, not wall-clock time, makes the rule the same for scheduled and manual checks and
 * independent of how late a check ran. Pure: db/repositories/monitors.ts reads the history.
 */

export interface AdaptiveSchedule {
  minIntervalMs: number;
  maxIntervalMs: number;
}

/** One earlier check of a URL: the monitor's tick it ran at, and what it found. */
export interface UrlCheck {
  tick: number;
  status: string;
  checkedAt: Date;
}

export interface UrlCadence {
  /** Whether the check at `currentTick` fetches the URL. */
  due: boolean;
  /** Ticks between checks the evidence calls for. */
  intervalTicks: number;
  estimatedIntervalMs: number;
  /** Posterior mean changes per day. */
  changesPerDay: number;
  /** The evidence: checks made, changes seen, over how many ticks. */
  checks: number;
  changes: number;
  spanTicks: number;
  lastCheckedAt: string | null;
  nextCheckTick: number;
}

/** Statuses that say the page changed since its previous check. */
const CHANGED = new Set(['changed', 'removed']);

export function urlCadence(history: readonly UrlCheck[], currentTick: number, schedule: AdaptiveSchedule): UrlCadence {
  const maxTicks = Math.max(1, Math.floor(schedule.maxIntervalMs / schedule.minIntervalMs));
  // A check that failed saw nothing of the page: it is no evidence either way.
  const sorted = history.filter((c) => c.status !== 'error').sort((a, b) => a.tick - b.tick);
  const first = sorted[0];
  const last = sorted.at(-1);
  let intervalTicks = 1;
  let changes = 0;
  for (const check of sorted.slice(1)) {
    const changed = CHANGED.has(check.status);
    if (changed) changes += 1;
    const estimate = Math.floor((check.tick - first!.tick + 1) / (changes + 1));
    intervalTicks = Math.min(maxTicks, Math.max(1, changed ? Math.min(estimate, Math.floor(intervalTicks / 2)) : estimate));
  }
  const spanTicks = first && last ? last.tick - first.tick : 0;
  const rate = (changes + 1) / (spanTicks + 1);
  const nextCheckTick = last ? last.tick + intervalTicks : currentTick;
  return {
    due: !last || currentTick >= nextCheckTick,
    intervalTicks,
    estimatedIntervalMs: intervalTicks * schedule.minIntervalMs,
    changesPerDay: (rate * 86_400_000) / schedule.minIntervalMs,
    checks: sorted.length,
    changes,
    spanTicks,
    lastCheckedAt: last?.checkedAt.toISOString() ?? null,
    nextCheckTick,
  };
}

/** A page an earlier check found, as db/repositories/monitors.ts monitorPageHistory reads it. */
export interface PageHistoryRow {
  target_id: string;
  url_key: string;
  status: string;
  tick: number;
  created_at: Date;
}

/** The cadence of each of a target's pages at `currentTick`, by URL key. */
export function targetCadences(
  targetId: string,
  urlKeys: readonly string[],
  rows: readonly PageHistoryRow[],
  currentTick: number,
  schedule: AdaptiveSchedule,
): Map<string, UrlCadence> {
  const byKey = new Map<string, UrlCheck[]>(urlKeys.map((key) => [key, []]));
  for (const row of rows) {
    // The check under way is not yet evidence about itself.
    if (row.target_id === targetId && row.tick < currentTick) byKey.get(row.url_key)?.push({ tick: row.tick, status: row.status, checkedAt: row.created_at });
  }
  return new Map([...byKey].map(([key, history]) => [key, urlCadence(history, currentTick, schedule)]));
}
