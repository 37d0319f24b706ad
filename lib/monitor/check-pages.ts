/**
 * A check's page results from what its jobs stored: each page's change-tracking status, its error,
 * and for crawl targets the pages the previous check found that this crawl did not reach
 * (`removed`). Pure, so the rules are unit-tested without a stack.
 */
export type CheckPageStatus = 'same' | 'new' | 'changed' | 'removed' | 'error';

/** One page of a check's job, as db/repositories/monitors.ts checkJobPages reads it. */
export interface JobPage {
  url: string;
  url_key: string;
  page_status: string;
  document_id: string | null;
  document_status: string | null;
  error: string | null;
  change_tracking: Record<string, unknown> | null;
  status_code: number | null;
}

/** A page of the previous check of the same target. */
export interface PreviousPage {
  url: string;
  url_key: string;
  status: string;
  current_scrape_id: string | null;
  previous_scrape_id: string | null;
}

export interface ComparedPage {
  targetId: string;
  url: string;
  urlKey: string;
  status: CheckPageStatus;
  previousScrapeId: string | null;
  currentScrapeId: string | null;
  statusCode: number | null;
  error: string | null;
  diff: Record<string, unknown> | null;
  /** A search result's title and description: what the goal is judged on (not stored). */
  snippet?: string;
}

const STATUSES = new Set(['same', 'new', 'changed', 'removed']);

export function comparePages(target: { targetId: string; type: 'scrape' | 'crawl' }, pages: readonly JobPage[], previous: readonly PreviousPage[]): ComparedPage[] {
  const before = new Map(previous.map((p) => [p.url_key, p]));
  const lastScrapeOf = (key: string) => {
    const p = before.get(key);
    return p ? (p.current_scrape_id ?? p.previous_scrape_id) : null;
  };
  const compared: ComparedPage[] = pages.map((page) => {
    const tracking = page.change_tracking;
    const changeStatus = typeof tracking?.changeStatus === 'string' ? tracking.changeStatus : undefined;
    const stored = page.document_status === 'completed' && changeStatus !== undefined && STATUSES.has(changeStatus);
    const base = { targetId: target.targetId, url: page.url, urlKey: page.url_key, previousScrapeId: lastScrapeOf(page.url_key), statusCode: page.status_code };
    if (!stored) {
      // Queued pages the job retired (out of credits) and failed pages are both errors of this check.
      const error = page.error ?? (page.page_status === 'cancelled' || page.page_status === 'queued' ? 'The page was not scraped: the team ran out of credits' : 'The page could not be scraped');
      return { ...base, status: 'error', currentScrapeId: page.document_id, error, diff: null };
    }
    const diff = (tracking?.diff as Record<string, unknown> | undefined) ?? null;
    return { ...base, status: changeStatus as CheckPageStatus, currentScrapeId: page.document_id, error: null, diff: changeStatus === 'changed' ? diff : null };
  });
  if (target.type === 'crawl') {
    const found = new Set(pages.map((p) => p.url_key));
    for (const gone of previous) {
      // A page already reported removed (or never read) is not removed again.
      if (found.has(gone.url_key) || gone.status === 'removed' || gone.status === 'error') continue;
      compared.push({
        targetId: target.targetId,
        url: gone.url,
        urlKey: gone.url_key,
        status: 'removed',
        previousScrapeId: lastScrapeOf(gone.url_key),
        currentScrapeId: null,
        statusCode: null,
        error: null,
        diff: null,
      });
    }
  }
  return compared;
}

export function summarize(pages: readonly { status: CheckPageStatus }[]): Record<'totalPages' | CheckPageStatus, number> {
  const summary = { totalPages: pages.length, same: 0, changed: 0, new: 0, removed: 0, error: 0 };
  for (const page of pages) summary[page.status] += 1;
  return summary;
}
