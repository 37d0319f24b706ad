/** README.md tables the plan defaults and costs; this keeps that table and the code in step. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { browserSessionCredits, CREDIT_COSTS, pageCredits } from '../../../lib/credits.js';
import { DEFAULT_PLAN, ENDPOINT_CLASSES } from '../../../lib/plans.js';

const doc = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');

/** The first two cells of each row of the main table: what → default. */
const tableDefaults = new Map(
  doc
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| what') && !line.startsWith('|---'))
    .map((line) => line.split(' | ').map((cell) => cell.replace(/^\| /, '').trim()))
    .map((cells) => [cells[0]!, cells[1]!] as const),
);

describe('README.md plans table', () => {
  it('states the default plan the code applies', () => {
    const expected: Record<string, string> = {
      'credits per calendar month (UTC)': String(DEFAULT_PLAN.monthlyCredits),
      'LLM tokens per month': String(DEFAULT_PLAN.monthlyTokens),
      'pages fetched at once (browser concurrency)': String(DEFAULT_PLAN.concurrency),
      'zeroDataRetention allowed': String(DEFAULT_PLAN.zeroDataRetention),
      'threat protection enabled': String(DEFAULT_PLAN.threatProtection),
      'monitors kept': String(DEFAULT_PLAN.monitors),
      'agent runs at once': String(DEFAULT_PLAN.agentConcurrency),
      'unbilled tool calls of failed agent runs per month': String(DEFAULT_PLAN.unbilledFailedAgentPages),
      ...Object.fromEntries(
        ENDPOINT_CLASSES.map((c) => [`${c} requests per minute`, String(DEFAULT_PLAN.rateLimits[c])]),
      ),
    };
    for (const [what, value] of Object.entries(expected)) expect(tableDefaults.get(what), what).toBe(value);
  });

  it('states the costs lib/credits.ts charges', () => {
    const credits = (n: number) => `${n} credit${n === 1 ? '' : 's'}`;
    const plus = (n: number) => `+${n} credits`;
    const base = pageCredits({ succeeded: true });
    const expected: Record<string, string> = {
      'a scraped page (HTML, JSON, text)': credits(base),
      'a PDF, parsed': `${pageCredits({ succeeded: true, pdf: { parsed: true, pages: 1 } })} credit per PDF page`,
      'a PDF, unparsed (base64)': credits(pageCredits({ succeeded: true, pdf: { parsed: false, pages: 9 } })),
      '`json` format (model extraction)': plus(CREDIT_COSTS.jsonFormat),
      '`summary` format': plus(CREDIT_COSTS.summaryFormat),
      'prompt-injection check, when it runs': plus(pageCredits({ succeeded: true, promptInjectionChecked: true }) - base),
      '`changeTracking` json mode, when the model runs': plus(CREDIT_COSTS.changeTrackingJson),
      'an extract page (a scrape with `json`)': credits(base + CREDIT_COSTS.jsonFormat),
      'search, per 10 results or part of 10': credits(CREDIT_COSTS.searchPerTenResults),
      'threat protection `normal`, per URL scanned': plus(pageCredits({ succeeded: true, threatScannedUrls: 1 }) - base),
      'enhanced or auto proxy': plus(0),
      '`lockdown`, answered from the cache': plus(pageCredits({ succeeded: true, lockdown: true }) - base),
      '`question` (or `query`) format': plus(CREDIT_COSTS.questionFormat),
      '`highlights` format': plus(CREDIT_COSTS.highlightsFormat),
      '`redactPII`, per page (and per PDF page after the first)': plus(CREDIT_COSTS.redactPII),
      'a failed page': credits(pageCredits({ succeeded: false })),
      "a browser session's time, per minute": credits(browserSessionCredits(60_000, false)),
    };
    for (const [what, value] of Object.entries(expected)) expect(tableDefaults.get(what), what).toBe(value);
  });
});
