/**
 * Noise-aware comparison (the block diff's significance): fixtures of one page loaded twice, differing only in noise (timestamps,
 * counters, rotating ads, session tokens), must compare equal; a real edit among the same noise
 * must not.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { changeTracking } from '../../../scraper/change-tracking/change-tracking.js';
import { blockDiff } from '../../../scraper/change-tracking/block-diff.js';

const differsBeyondNoise = (a: string, b: string) => blockDiff(a, b).stats.substantive > 0;

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/monitor/${name}`, import.meta.url), 'utf8');

describe('noise-aware change detection', () => {
  const first = fixture('news-load-1.md');
  const second = fixture('news-load-2.md');
  const edited = fixture('news-load-3-edited.md');

  it('the fixtures really differ in their raw text', () => {
    expect(first).not.toBe(second);
  });

  it('two loads that differ only in noise are the same', () => {
    expect(differsBeyondNoise(first, second)).toBe(false);
    const tracked = changeTracking({ markdown: first, scrapedAt: new Date() }, { markdown: second, statusCode: 200 }, ['git-diff'], { ignoreNoise: true });
    expect(tracked.changeStatus).toBe('same');
  });

  it('without ignoreNoise the same pair is changed (user change tracking is unchanged)', () => {
    expect(changeTracking({ markdown: first, scrapedAt: new Date() }, { markdown: second, statusCode: 200 }, ['git-diff']).changeStatus).toBe('changed');
  });

  it('a real edit among the noise is still changed, with the diff of the real text', () => {
    expect(differsBeyondNoise(second, edited)).toBe(true);
    const tracked = changeTracking({ markdown: second, scrapedAt: new Date() }, { markdown: edited, statusCode: 200 }, ['git-diff'], { ignoreNoise: true });
    expect(tracked.changeStatus).toBe('changed');
    expect(tracked.diff?.text).toContain('+Prices rise by 12% from January.');
  });

  it.each([
    ['Updated 2026-11-26T10:15:03Z', 'Updated 2026-11-27T08:01:59Z'],
    ['Posted Nov 26, 2026 at 10:15 AM', 'Posted Dec 1, 2026 at 9:02 PM'],
    ['3 minutes ago', '2 hours ago'],
    ['1,234 views · 88 people online', '1,301 views · 91 people online'],
    ['[Logout](/logout?sid=a8f3c2d1e4b5a6c7d8e9f0a1)', '[Logout](/logout?sid=0f9e8d7c6b5a4f3e2d1c0b9a)'],
    ['csrf 5f0c1d9e-2b7a-4c1e-9f3a-7d2b8e6c1a04', 'csrf 9a1b2c3d-4e5f-4a6b-8c7d-1e2f3a4b5c6d'],
    ['Intro\n\nAdvertisement: Buy shoes now\n\nBody', 'Intro\n\nAdvertisement: Cheap flights to Rome\n\nBody'],
  ])('%j and %j are the same page', (a, b) => {
    expect(differsBeyondNoise(a, b)).toBe(false);
  });

  it.each([
    ['Price: $19.99', 'Price: $24.99'],
    ['The API returns 3 fields.', 'The API returns 4 fields.'],
    ['Version 2.3 released', 'Version 2.4 released'],
    ['Our office is in Paris', 'Our office is in Berlin'],
  ])('%j and %j differ', (a, b) => {
    expect(differsBeyondNoise(a, b)).toBe(true);
  });
});

describe('noise patterns on hostile page text', () => {
  // A long run of spaces after a number, then no counting word: the old counter pattern let
  // `[\d,.\s]*` and `\s+` compete for the spaces (quadratic); the ad pattern did the same with its
  // leading `\s*` and `[*_#>\s-]*`. The test's own timeout is the bound, not a stopwatch.
  it.each([
    ['a number followed by 300,000 spaces', `1${' '.repeat(300_000)}x`],
    ['300,000 spaces before an ad label that is not one', `${' '.repeat(300_000)}adx`],
  ])('masks %s in one pass', (_what, text) => {
    expect(differsBeyondNoise(text, `${text}y`)).toBe(true);
  });
});
