/**
 * Adaptive monitors' cadence (lib/monitor/adaptive.ts) and their schedule (lib/monitor/schedule.ts):
 * a page that changes at every check is checked at every tick, one that never changes ever more
 * rarely, up to the maximum interval.
 */
import { describe, expect, it } from 'vitest';
import { urlCadence, type UrlCheck } from '../../../lib/monitor/adaptive.js';
import { resolveSchedule, ScheduleError } from '../../../lib/monitor/schedule.js';

const MINUTES = 60_000;
const schedule = { minIntervalMs: 5 * MINUTES, maxIntervalMs: 24 * 60 * MINUTES };

/** Runs `ticks` checks of a page whose content changes when `changesAt(tick)`; returns the ticks it was fetched at. */
function simulate(ticks: number, changesAt: (tick: number) => boolean, bounds = schedule): number[] {
  const history: UrlCheck[] = [];
  let changedSinceLastCheck = false;
  for (let tick = 0; tick < ticks; tick++) {
    changedSinceLastCheck ||= tick > 0 && changesAt(tick);
    if (!urlCadence(history, tick, bounds).due) continue;
    history.push({ tick, status: history.length === 0 ? 'new' : changedSinceLastCheck ? 'changed' : 'same', checkedAt: new Date(tick * bounds.minIntervalMs) });
    changedSinceLastCheck = false;
  }
  return history.map((c) => c.tick);
}

describe('adaptive cadence', () => {
  it('checks a page that changes every tick at every tick, and a page that never does at least 5× less often', () => {
    const volatile = simulate(31, () => true);
    const stable = simulate(31, () => false);
    expect(volatile).toHaveLength(31);
    expect(stable).toEqual([0, 1, 3, 7, 15]);
    expect(volatile.length / stable.length).toBeGreaterThanOrEqual(5);
  });

  it('never waits past the maximum interval', () => {
    const fetched = simulate(200, () => false, { minIntervalMs: 5 * MINUTES, maxIntervalMs: 60 * MINUTES });
    const gaps = fetched.slice(1).map((t, i) => t - fetched[i]!);
    expect(Math.max(...gaps)).toBe(12);
  });

  it('speeds up again when a stable page starts changing', () => {
    const fetched = simulate(120, (tick) => tick >= 40);
    expect(fetched.filter((t) => t < 40)).toEqual([0, 1, 3, 7, 15, 31]);
    const gaps = fetched.slice(1).map((t, i) => t - fetched[i]!);
    // 32, then halved at each change found: every tick again well before the end.
    expect(gaps.slice(-10)).toEqual(Array(10).fill(1));
  });

  it('takes a failed check as no evidence', () => {
    const history: UrlCheck[] = [
      { tick: 0, status: 'new', checkedAt: new Date(0) },
      { tick: 1, status: 'error', checkedAt: new Date(1) },
    ];
    expect(urlCadence(history, 1, schedule)).toMatchObject({ checks: 1, spanTicks: 0, intervalTicks: 1, due: true });
  });
});

describe('adaptive schedule', () => {
  it('ticks at the minimum interval, read back with its bounds', () => {
    expect(resolveSchedule({ adaptive: { minIntervalMs: 15 * MINUTES, maxIntervalMs: 86_400_000 } })).toEqual({
      cron: '*/15 * * * *',
      timezone: 'UTC',
      adaptive: { minIntervalMs: 15 * MINUTES, maxIntervalMs: 86_400_000 },
    });
  });

  it.each([
    [{ minIntervalMs: 90_000 * 3, maxIntervalMs: 86_400_000 }, 'whole number of minutes'],
    [{ minIntervalMs: 10 * MINUTES, maxIntervalMs: 5 * MINUTES }, 'at least minIntervalMs'],
    [{ minIntervalMs: 7 * MINUTES, maxIntervalMs: 86_400_000 }, 'adaptive.minIntervalMs'],
    [{ minIntervalMs: 10 * MINUTES, maxIntervalMs: 31 * 86_400_000 }, '30 days'],
  ])('refuses %j, saying why', (adaptive, why) => {
    expect(() => resolveSchedule({ adaptive })).toThrow(ScheduleError);
    expect(() => resolveSchedule({ adaptive })).toThrow(why);
  });
});
