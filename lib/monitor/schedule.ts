/**
 * A monitor's schedule as Firecrawl takes it: a 5-field `cron` or a plain-text `text` ("every 30
 * minutes", "hourly", "daily at 9:00"), with a `timezone`. Text is turned into cron here, so the
 * monitor always reads back as cron (as Firecrawl answers). The minimum interval is Firecrawl's:
 * 5 minutes between any two runs. croner evaluates the expression, in the timezone, to check that
 * and to count the runs in a month for `estimatedCreditsPerMonth`; Temporal runs the Schedule.
 */
import { Cron } from 'croner';
import type { AdaptiveSchedule } from './adaptive.js';

export const MIN_INTERVAL_SECS = 300;

export interface MonitorScheduleInput {
  cron?: string;
  text?: string;
  timezone?: string;
  /** Trawl: checks every minIntervalMs, each URL only when due (lib/monitor/adaptive.ts). */
  adaptive?: AdaptiveSchedule;
}

export interface ResolvedSchedule {
  cron: string;
  timezone: string;
  /** The text it was given as, kept for reading back. */
  text?: string;
  adaptive?: AdaptiveSchedule;
}

/** The longest an adaptive URL may go unchecked. */
export const MAX_ADAPTIVE_INTERVAL_MS = 30 * 86_400_000;

export class ScheduleError extends Error {}

const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/** The plain-text forms understood, listed in the 400 a text outside them gets. */
export const SCHEDULE_TEXT_FORMS = [
  'every N minutes (N from 1 to 59, or whole hours: 60, 120, ... 1440)',
  'every N minutes starting at :MM (N from 1 to 59)',
  'every N hours (N from 1 to 24)',
  'hourly',
  'daily',
  'daily at HH:MM',
  'every day at HH:MM',
  'weekly',
  'weekly on <day> at HH:MM',
];

export function resolveSchedule(input: MonitorScheduleInput): ResolvedSchedule {
  const timezone = input.timezone ?? 'UTC';
  if (!isTimezone(timezone)) throw new ScheduleError(`Unknown timezone "${timezone}"; use an IANA name such as UTC or Europe/Paris`);
  if (input.adaptive) {
    try {
      const { cron } = resolveSchedule({ text: adaptiveTick(input.adaptive), timezone });
      return { cron, timezone, adaptive: input.adaptive };
    } catch (err) {
      // The tick is every minIntervalMs: say so rather than blame a text the caller never wrote.
      throw new ScheduleError(`adaptive.minIntervalMs ${input.adaptive.minIntervalMs}: ${(err as Error).message}`);
    }
  }
  const cron = input.cron !== undefined ? input.cron.trim().replace(/\s+/g, ' ') : cronFromText(input.text ?? '');
  if (cron.split(' ').length !== 5) throw new ScheduleError(`"${cron}" is not a 5-field cron expression (minute hour day month weekday)`);
  let runs: Date[];
  try {
    runs = new Cron(cron, { timezone }).nextRuns(150);
  } catch (err) {
    throw new ScheduleError(`Invalid cron expression "${cron}": ${err instanceof Error ? err.message : String(err)}`);
  }
  if (runs.length === 0) throw new ScheduleError(`The cron expression "${cron}" never runs`);
  for (let i = 1; i < runs.length; i++) {
    if (runs[i]!.getTime() - runs[i - 1]!.getTime() < MIN_INTERVAL_SECS * 1000) {
      throw new ScheduleError(`The schedule runs more often than every ${MIN_INTERVAL_SECS / 60} minutes, the minimum interval`);
    }
  }
  return { cron, timezone, ...(input.text !== undefined && input.cron === undefined && { text: input.text }) };
}

/** The schedule an adaptive monitor's ticks follow: its minimum interval, as the text form says it. */
function adaptiveTick({ minIntervalMs, maxIntervalMs }: AdaptiveSchedule): string {
  const minutes = minIntervalMs / 60_000;
  if (!Number.isInteger(minutes)) throw new ScheduleError('adaptive.minIntervalMs must be a whole number of minutes');
  if (maxIntervalMs < minIntervalMs) throw new ScheduleError('adaptive.maxIntervalMs must be at least minIntervalMs');
  if (maxIntervalMs > MAX_ADAPTIVE_INTERVAL_MS) throw new ScheduleError(`adaptive.maxIntervalMs may be at most ${MAX_ADAPTIVE_INTERVAL_MS} (30 days)`);
  return `every ${minutes} minutes`;
}

/** Runs in the next 30 days, counted over a week so a 5-minute schedule costs ~2,000 steps, not 8,640. */
export function runsPerMonth(schedule: ResolvedSchedule, from = new Date()): number {
  const weekEnd = from.getTime() + 7 * 86_400_000;
  const cron = new Cron(schedule.cron, { timezone: schedule.timezone });
  let count = 0;
  let next = cron.nextRun(from);
  while (next && next.getTime() <= weekEnd && count < 10_000) {
    count += 1;
    next = cron.nextRun(next);
  }
  // A monthly or yearly schedule may not run this week at all.
  if (count === 0) {
    let n = 0;
    let run = cron.nextRun(from);
    while (run && run.getTime() <= from.getTime() + 30 * 86_400_000) {
      n += 1;
      run = cron.nextRun(run);
    }
    return n;
  }
  return Math.round((count * 30) / 7);
}

export function nextRunAt(schedule: ResolvedSchedule, from = new Date()): Date | null {
  return new Cron(schedule.cron, { timezone: schedule.timezone }).nextRun(from);
}

function cronEveryHours(n: number, fail: () => ScheduleError): string {
  if (n === 24) return '0 0 * * *';
  if (n < 1 || n > 23) throw fail();
  return n === 1 ? '0 * * * *' : `0 */${n} * * *`;
}

function cronFromText(raw: string): string {
  const text = raw.trim().toLowerCase().replace(/\s+/g, ' ');
  const fail = () => new ScheduleError(`Unrecognised schedule text "${raw}"; use schedule.cron or one of: ${SCHEDULE_TEXT_FORMS.join(', ')}`);
  let m: RegExpMatchArray | null;
  if ((m = text.match(/^every (\d+)? ?minutes?(?: starting at :?(\d{1,2}))?$/))) {
    const n = Number(m[1] ?? 1);
    // "every 60 minutes" is how people say hourly; whole hours read as hours.
    if (n >= 60 && n % 60 === 0 && m[2] === undefined) return cronEveryHours(n / 60, fail);
    if (n < 1 || n > 59) throw fail();
    const start = m[2] === undefined ? 0 : Number(m[2]);
    if (start > 59) throw fail();
    return start === 0 ? `*/${n} * * * *` : `${start}-59/${n} * * * *`;
  }
  if ((m = text.match(/^every (\d+)? ?hours?$/)) || text === 'hourly') return cronEveryHours(Number(m?.[1] ?? 1), fail);
  if ((m = text.match(/^(?:daily|every day)(?: at (.+))?$/))) {
    const [h, min] = m[1] === undefined ? [0, 0] : timeOfDay(m[1], fail);
    return `${min} ${h} * * *`;
  }
  if ((m = text.match(/^(?:weekly|every week)(?: on (\w+))?(?: at (.+))?$/))) {
    const day = m[1] === undefined ? 1 : DAYS.findIndex((d) => d.startsWith(m![1]!.slice(0, 3)));
    if (day < 0) throw fail();
    const [h, min] = m[2] === undefined ? [0, 0] : timeOfDay(m[2], fail);
    return `${min} ${h} * * ${day}`;
  }
  throw fail();
}

/** "9:00", "09:30", "9am", "5:15 pm". */
function timeOfDay(raw: string, fail: () => ScheduleError): [number, number] {
  const m = raw.trim().match(/^(\d{1,2})(?::(\d{2}))? ?(am|pm)?$/);
  if (!m) throw fail();
  let h = Number(m[1]);
  const min = Number(m[2] ?? 0);
  if (m[3] === 'pm' && h < 12) h += 12;
  if (m[3] === 'am' && h === 12) h = 0;
  if (h > 23 || min > 59) throw fail();
  return [h, min];
}

function isTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}
