/**
 * Credit rules, in one place so they can be read against the specification's cost table.
 * Pure: used by activities when they charge, by the API when it clamps limits, and by tests.
 *
 * | what | credits |
 * |---|---|
 * | scraped page (HTML, JSON, text) | 1 |
 * | PDF with parsing | 1 per PDF page |
 * | PDF without parsing (base64) | 1 flat |
 * | `json` format (model extraction) | +4 |
 * | `summary` format | +4 |
 * | prompt-injection check (when it runs) | +4 |
 * | threat protection `normal`, per URL scanned | +2 |
 * | `lockdown`, answered from the cache | +4 |
 * | `question` (or `query`) format | +4 |
 * | `highlights` format | +4 |
 * | `redactPII` | +4, and +4 per PDF page after the first |
 * | zero data retention | +1 per page; a ZDR search 10 per 10 results instead of 2 |
 * | enhanced or auto proxy | +0 |
 * | failed scrape | 0 |
 */
export const CREDIT_COSTS = Object.freeze({
  page: 1,
  pdfPage: 1,
  pdfUnparsed: 1,
  jsonFormat: 4,
  summaryFormat: 4,
  promptInjectionCheck: 4,
  changeTrackingJson: 4,
  searchPerTenResults: 2,
  threatScanPerUrl: 2,
  lockdown: 4,
  questionFormat: 4,
  highlightsFormat: 4,
  redactPII: 4,
  zeroDataRetention: 1,
  zdrSearchPerTenResults: 10,
});

/**
 * What an agent's tool is expected to cost, checked against the run's budget before it runs (a
 * scrape of a long PDF may cost more): a search's first ten results, a map, a page, a page with
 * the `json` format.
 */
export const AGENT_TOOL_EXPECTED_CREDITS = Object.freeze({
  search: CREDIT_COSTS.searchPerTenResults,
  map: CREDIT_COSTS.page,
  scrape: CREDIT_COSTS.page,
  extract: CREDIT_COSTS.page + CREDIT_COSTS.jsonFormat,
});

export interface PageCostInput {
  succeeded: boolean;
  /** Set for PDFs: the page count when parsed, undefined when returned unparsed. */
  pdf?: { parsed: boolean; pages: number };
  promptInjectionChecked?: boolean;
  threatScannedUrls?: number;
  /** Answered in lockdown: Firecrawl charges 5 credits for a lockdown hit. */
  lockdown?: boolean;
  /** A zero-data-retention page: Firecrawl's +1 per page. */
  zeroDataRetention?: boolean;
}

export function pageCredits(input: PageCostInput): number {
  if (!input.succeeded) return 0;
  let cost: number = CREDIT_COSTS.page;
  if (input.pdf) {
    cost = input.pdf.parsed ? Math.max(1, input.pdf.pages) * CREDIT_COSTS.pdfPage : CREDIT_COSTS.pdfUnparsed;
  }
  if (input.promptInjectionChecked) cost += CREDIT_COSTS.promptInjectionCheck;
  cost += (input.threatScannedUrls ?? 0) * CREDIT_COSTS.threatScanPerUrl;
  if (input.lockdown) cost += CREDIT_COSTS.lockdown;
  if (input.zeroDataRetention) cost += CREDIT_COSTS.zeroDataRetention;
  return cost;
}

/** Credits left this billing period; never negative, even after the plan was lowered below use. */
export function creditsLeft(planCredits: number, usedCredits: number): number {
  return Math.max(0, planCredits - usedCredits);
}

export interface ClampedPages {
  /** Pages the job may scrape. */
  pages: number;
  /** Set when `requested` was lowered; stored on the job and shown by its status. */
  warning?: string;
}

/**
 * A crawl limit or a batch's URL count above the credits left is lowered to them, so a job never
 * starts work it cannot pay for. Pages can cost more than one credit (PDFs), so this is a first
 * cut: a job that still runs out stops cleanly (see CREDITS_EXHAUSTED_WARNING).
 */
export function clampPagesToCredits(requested: number, remainingCredits: number): ClampedPages {
  if (requested <= remainingCredits) return { pages: requested };
  return {
    pages: remainingCredits,
    warning:
      `Only ${remainingCredits} of ${requested} pages will be scraped: ` +
      `the team has ${remainingCredits} credits left in this billing period.`,
  };
}

/** Shown by a crawl or batch that stopped because the team ran out of credits part way. */
export const CREDITS_EXHAUSTED_WARNING =
  'The team ran out of credits: the job stopped early and kept the pages scraped so far.';

/**
 * A browser session's time, as Firecrawl bills it: 120 credits an hour (2 a minute), 420 once a
 * prompt ran in it; prorated, rounded up, and never less than a minute's worth.
 */
export const BROWSER_SESSION_CREDITS_PER_HOUR = Object.freeze({ code: 120, prompt: 420 });

export function browserSessionCredits(durationMs: number, usedPrompt: boolean): number {
  const perHour = usedPrompt ? BROWSER_SESSION_CREDITS_PER_HOUR.prompt : BROWSER_SESSION_CREDITS_PER_HOUR.code;
  return Math.max(Math.ceil(perHour / 60), Math.ceil((Math.max(0, durationMs) / 3_600_000) * perHour));
}
