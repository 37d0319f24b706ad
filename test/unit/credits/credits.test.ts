/** The cost table and plan rules of lib/credits.ts and lib/plans.ts, read against the specification. */
import { describe, expect, it } from 'vitest';
import { clampPagesToCredits, CREDIT_COSTS, creditsLeft, pageCredits } from '../../../lib/credits.js';
import { billingPeriodEnd, DEFAULT_PLAN, ENDPOINT_CLASSES, planColumns, resolvePlan } from '../../../lib/plans.js';

describe('pageCredits: the specification cost table', () => {
  it.each([
    ['a scraped page', { succeeded: true }, 1],
    ['a failed scrape', { succeeded: false }, 0],
    ['a failed scrape, whatever it would have cost', { succeeded: false, promptInjectionChecked: true, threatScannedUrls: 3 }, 0],
    ['a parsed PDF of 7 pages (1 per page)', { succeeded: true, pdf: { parsed: true, pages: 7 } }, 7],
    ['a parsed PDF that reports 0 pages still costs 1', { succeeded: true, pdf: { parsed: true, pages: 0 } }, 1],
    ['an unparsed PDF (base64) is flat', { succeeded: true, pdf: { parsed: false, pages: 40 } }, 1],
    ['the prompt-injection check adds 4', { succeeded: true, promptInjectionChecked: true }, 5],
    ['threat protection adds 2 per URL scanned', { succeeded: true, threatScannedUrls: 3 }, 7],
    ['everything together', { succeeded: true, pdf: { parsed: true, pages: 2 }, promptInjectionChecked: true, threatScannedUrls: 1 }, 8],
  ])('%s', (_name, input, credits) => {
    expect(pageCredits(input)).toBe(credits);
  });

  it('has no proxy surcharge: enhanced and auto cost what basic costs', () => {
    expect(Object.keys(CREDIT_COSTS).some((k) => /proxy/i.test(k))).toBe(false);
  });
});

describe('credits left and clamping', () => {
  it('never reports negative credits, even after a plan was lowered below use', () => {
    expect(creditsLeft(100, 30)).toBe(70);
    expect(creditsLeft(100, 100)).toBe(0);
    expect(creditsLeft(10, 30)).toBe(0);
  });

  it('keeps a job that fits and lowers one that does not, with a warning', () => {
    expect(clampPagesToCredits(10, 10)).toEqual({ pages: 10 });
    const clamped = clampPagesToCredits(10_000, 25);
    expect(clamped.pages).toBe(25);
    expect(clamped.warning).toContain('Only 25 of 10000 pages');
  });
});

describe('plans', () => {
  it('gives a team without a stored plan the generous defaults', () => {
    expect(resolvePlan(undefined)).toBe(DEFAULT_PLAN);
    expect(DEFAULT_PLAN.rateLimits['crawl-status']).toBeGreaterThan(DEFAULT_PLAN.rateLimits.scrape);
    for (const endpoint of ENDPOINT_CLASSES) expect(DEFAULT_PLAN.rateLimits[endpoint]).toBeGreaterThanOrEqual(100);
  });

  it('stores every field of a plan and reads it back unchanged', () => {
    const plan = {
      monthlyCredits: 500,
      monthlyTokens: 9,
      rateLimits: { scrape: 1, crawl: 2, 'crawl-status': 3, map: 4, search: 5, extract: 6, agent: 7 },
      concurrency: 8,
      zeroDataRetention: true,
      threatProtection: true,
      monitors: 10,
      agentConcurrency: 11,
      unbilledFailedAgentPages: 12,
    };
    const row = { team_id: 't', updated_at: new Date(), ...planColumns(plan) };
    expect(resolvePlan(row)).toEqual(plan);
  });

  it('bills by calendar month in UTC, across year ends', () => {
    expect(billingPeriodEnd(new Date('2026-11-01T00:00:00Z')).toISOString()).toBe('2026-12-01T00:00:00.000Z');
    expect(billingPeriodEnd(new Date('2026-12-01T00:00:00Z')).toISOString()).toBe('2027-01-01T00:00:00.000Z');
  });
});
