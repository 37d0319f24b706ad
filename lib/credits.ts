/**
 * Credit rules, in one place so they can be read against the specification's cost table.
 * Pure: used by activities when they charge, by the API when it clamps limits, and by tests.
 *
 * | what | credits |
 * |---|---|
 * | scraped page (HTML, JSON, text) | 1 |
 * | PDF with parsing | 1 per PDF page |
 * | PDF without parsing (base64) | 1 flat |
 * | prompt-injection check (when it runs) | +4 |
 * | threat protection `normal`, per URL scanned | +2 |
 * | enhanced or auto proxy | +0 |
 * | failed scrape | 0 |
 */
export const CREDIT_COSTS = Object.freeze({
  page: 1,
  pdfPage: 1,
  pdfUnparsed: 1,
  promptInjectionCheck: 4,
  threatScanPerUrl: 2,
});

export interface PageCostInput {
  succeeded: boolean;
  /** Set for PDFs: the page count when parsed, undefined when returned unparsed. */
  pdf?: { parsed: boolean; pages: number };
  promptInjectionChecked?: boolean;
  threatScannedUrls?: number;
}

export function pageCredits(input: PageCostInput): number {
  if (!input.succeeded) return 0;
  let cost: number = CREDIT_COSTS.page;
  if (input.pdf) {
    cost = input.pdf.parsed ? Math.max(1, input.pdf.pages) * CREDIT_COSTS.pdfPage : CREDIT_COSTS.pdfUnparsed;
  }
  if (input.promptInjectionChecked) cost += CREDIT_COSTS.promptInjectionCheck;
  cost += (input.threatScannedUrls ?? 0) * CREDIT_COSTS.threatScanPerUrl;
  return cost;
}
