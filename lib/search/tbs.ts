/**
 * Google's `tbs` time filters, as Firecrawl's search takes them: `qdr:h|d|w|m|y` (past hour, day,
 * week, month, year, optionally with a count, `qdr:d3`) and custom ranges
 * `cdr:1,cd_min:M/D/YYYY,cd_max:M/D/YYYY`. Pure.
 */
export interface TimeRange {
  from?: Date;
  to?: Date;
  /** The nearest SearXNG `time_range`, which knows only these. */
  searxng?: 'day' | 'week' | 'month' | 'year';
}

const UNIT_MS = { h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000, m: 31 * 86_400_000, y: 366 * 86_400_000 } as const;
const SEARXNG = { h: 'day', d: 'day', w: 'week', m: 'month', y: 'year' } as const;

/** Undefined for an empty `tbs`; throws a message for one it cannot read. */
export function parseTbs(tbs: string | undefined, now: Date): TimeRange | undefined {
  if (!tbs) return undefined;
  const recent = /^qdr:([hdwmy])(\d{0,4})$/.exec(tbs);
  if (recent) {
    const unit = recent[1] as keyof typeof UNIT_MS;
    const count = recent[2] ? Number(recent[2]) : 1;
    return { from: new Date(now.getTime() - count * UNIT_MS[unit]), searxng: count === 1 ? SEARXNG[unit] : undefined };
  }
  if (tbs.startsWith('cdr:1')) {
    const min = /cd_min:(\d{1,2})\/(\d{1,2})\/(\d{4})/.exec(tbs);
    const max = /cd_max:(\d{1,2})\/(\d{1,2})\/(\d{4})/.exec(tbs);
    if (!min && !max) throw new Error('a custom range needs cd_min or cd_max (M/D/YYYY)');
    const day = (m: RegExpExecArray, end: boolean) => new Date(Date.UTC(Number(m[3]), Number(m[1]) - 1, Number(m[2]) + (end ? 1 : 0)));
    return { ...(min && { from: day(min, false) }), ...(max && { to: day(max, true) }) };
  }
  throw new Error('tbs must be qdr:h|d|w|m|y (optionally with a count) or cdr:1,cd_min:M/D/YYYY,cd_max:M/D/YYYY');
}
