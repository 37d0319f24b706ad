/** A browser session's time, billed as Firecrawl bills it. */
import { describe, expect, it } from 'vitest';
import { browserSessionCredits } from '../../../lib/credits.js';

describe('browser session credits', () => {
  it('charge 2 a minute (120 an hour), prorated and rounded up, at least one minute', () => {
    expect(browserSessionCredits(0, false)).toBe(2);
    expect(browserSessionCredits(10_000, false)).toBe(2);
    expect(browserSessionCredits(90_000, false)).toBe(3);
    expect(browserSessionCredits(3_600_000, false)).toBe(120);
  });

  it('charge 7 a minute (420 an hour) once a prompt ran', () => {
    expect(browserSessionCredits(30_000, true)).toBe(7);
    expect(browserSessionCredits(3_600_000, true)).toBe(420);
  });
});
