/** One Trawl crawl through the public API, timed from the POST to the poll that sees it finished. */
import { startCrawl, waitForCrawl, type ApiTarget, type CrawlStatus } from './api-client.js';

export interface CrawlSpec {
  startUrl: string;
  limit: number;
  maxConcurrency: number;
}

export interface TimedCrawl {
  id: string;
  workflowId: string;
  pages: number;
  seconds: number;
  status: string;
}

export async function timedCrawl(
  target: ApiTarget,
  spec: CrawlSpec,
  onPoll?: (status: CrawlStatus, elapsedMs: number) => void,
): Promise<TimedCrawl> {
  const startedAt = performance.now();
  const id = await startCrawl(target, {
    url: spec.startUrl,
    limit: spec.limit,
    maxConcurrency: spec.maxConcurrency,
    // Both sides discover pages through links only; the sitemap would hand Trawl the whole site.
    sitemap: 'skip',
    // Every page fetched, whatever earlier runs left in the page cache: the peer has no cache.
    scrapeOptions: { formats: ['markdown'], maxAge: 0 },
  });
  const final = await waitForCrawl(target, id, {
    pollMs: 200,
    // Generous: a loaded machine renders a JavaScript page in seconds, not the usual fraction of one.
    timeoutMs: 120_000 + spec.limit * 5_000,
    onPoll: onPoll && ((status) => onPoll(status, performance.now() - startedAt)),
  });
  const seconds = (performance.now() - startedAt) / 1000;
  if (final.status !== 'completed') throw new Error(`crawl ${id} ended ${final.status} after ${final.completed} pages`);
  return { id, workflowId: `crawl-${id}`, pages: final.completed, seconds, status: final.status };
}
