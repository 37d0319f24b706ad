import { describe, expect, it } from 'vitest';
import { resolveSchedule, runsPerMonth, ScheduleError } from '../../../lib/monitor/schedule.js';

describe('monitor schedules', () => {
  it.each([
    ['every 30 minutes', '*/30 * * * *'],
    ['every 15 minutes starting at :07', '7-59/15 * * * *'],
    ['hourly', '0 * * * *'],
    ['every 6 hours', '0 */6 * * *'],
    ['every 60 minutes', '0 * * * *'],
    ['every 120 minutes', '0 */2 * * *'],
    ['every 1440 minutes', '0 0 * * *'],
    ['every 24 hours', '0 0 * * *'],
    ['daily', '0 0 * * *'],
    ['daily at 9:30', '30 9 * * *'],
    ['every day at 5pm', '0 17 * * *'],
    ['weekly on friday at 8:00', '0 8 * * 5'],
  ])('reads "%s" as %s', (text, cron) => {
    expect(resolveSchedule({ text, timezone: 'UTC' })).toEqual({ cron, timezone: 'UTC', text });
  });

  it('keeps a cron expression and its timezone', () => {
    expect(resolveSchedule({ cron: '7-59/15  * * * *', timezone: 'Europe/Paris' })).toEqual({ cron: '7-59/15 * * * *', timezone: 'Europe/Paris' });
  });

  it.each([
    [{ cron: '* * * * *' }, /minimum interval/],
    [{ text: 'every 2 minutes' }, /minimum interval/],
    // Uneven: two runs 2 minutes apart each hour.
    [{ cron: '0,2 * * * *' }, /minimum interval/],
    [{ cron: '0 * * *' }, /5-field/],
    [{ cron: '61 * * * *' }, /Invalid cron/],
    [{ text: 'whenever it rains' }, /Unrecognised schedule text/],
    // The refusal states the range it refuses by.
    [{ text: 'every 90 minutes' }, /every N minutes \(N from 1 to 59, or whole hours/],
    [{ cron: '0 * * * *', timezone: 'Mars/Olympus' }, /Unknown timezone/],
  ])('refuses %j', (input, message) => {
    expect(() => resolveSchedule(input)).toThrow(ScheduleError);
    expect(() => resolveSchedule(input)).toThrow(message);
  });

  it('counts the runs in a month', () => {
    const from = new Date('2026-11-02T00:00:00Z');
    expect(runsPerMonth({ cron: '*/30 * * * *', timezone: 'UTC' }, from)).toBe(1440);
    expect(runsPerMonth({ cron: '0 9 * * *', timezone: 'UTC' }, from)).toBe(30);
    expect(runsPerMonth({ cron: '0 0 1 * *', timezone: 'UTC' }, from)).toBe(1);
  });
});
