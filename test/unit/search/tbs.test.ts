import { describe, expect, it } from 'vitest';
import { parseTbs } from '../../../lib/search/tbs.js';

const now = new Date('2026-06-15T12:00:00Z');

describe('parseTbs', () => {
  it('reads past periods, with counts, and maps single ones to SearXNG time ranges', () => {
    expect(parseTbs('qdr:d', now)).toEqual({ from: new Date('2026-06-14T12:00:00Z'), searxng: 'day' });
    expect(parseTbs('qdr:h', now)).toEqual({ from: new Date('2026-06-15T11:00:00Z'), searxng: 'day' });
    expect(parseTbs('qdr:w2', now)).toEqual({ from: new Date('2026-06-01T12:00:00Z'), searxng: undefined });
    expect(parseTbs(undefined, now)).toBeUndefined();
  });

  it('reads custom ranges inclusive of their last day', () => {
    expect(parseTbs('cdr:1,cd_min:1/1/2020,cd_max:12/31/2020', now)).toEqual({ from: new Date('2020-01-01T00:00:00Z'), to: new Date('2021-01-01T00:00:00Z') });
    expect(parseTbs('cdr:1,cd_min:3/5/2024', now)).toEqual({ from: new Date('2024-03-05T00:00:00Z') });
  });

  it('refuses what it cannot read', () => {
    expect(() => parseTbs('qdr:z', now)).toThrow(/tbs must be/);
    expect(() => parseTbs('cdr:1', now)).toThrow(/cd_min or cd_max/);
  });
});
