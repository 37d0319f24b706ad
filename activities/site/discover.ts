/**
 * Links found on a page or in a sitemap, filtered through the crawl's scope and robots.txt, then
 * added to its frontier. Used when a crawl starts and after each of its pages.
 */
import { enqueuePages, recordRobotsBlocked, type FrontierCandidate } from '../../db/repositories/crawl-pages.js';
import { createScope } from '../../lib/crawl/scope.js';
import type { CrawlerSettings } from '../../lib/crawl/settings.js';
import { normalizeUrl, urlKey } from '../../lib/url/normalize.js';
import type { ActivityDeps } from '../deps.js';
import type { RobotsLookup } from './site-rules.js';

/** Resolves to the number of pages added to the frontier. */
export async function discover(
  deps: ActivityDeps,
  robotsFor: RobotsLookup,
  jobId: string,
  crawler: CrawlerSettings,
  links: readonly string[],
  depth: number,
): Promise<number> {
  const scope = createScope(crawler);
  const candidates: FrontierCandidate[] = [];
  const blocked: string[] = [];
  for (const raw of links) {
    const url = fetchableUrl(raw, crawler);
    if (!url || !scope.check(url, depth).ok) continue;
    if (!crawler.ignoreRobotsTxt && !(await robotsFor(jobId, url, crawler.via)).isAllowed(url)) {
      blocked.push(url);
      continue;
    }
    candidates.push({ url, urlKey: frontierKey(url, crawler), depth });
  }
  await recordRobotsBlocked(deps.db, jobId, blocked);
  return enqueuePages(deps.db, jobId, crawler.limit, candidates);
}

export function frontierKey(url: string, crawler: CrawlerSettings): string {
  return urlKey(
    normalizeUrl(url, {
      ignoreQueryParameters: crawler.ignoreQueryParameters,
      deduplicateSimilarURLs: crawler.deduplicateSimilarURLs,
    }),
  );
}

/** The URL the crawler fetches: fragment gone, and query gone when the crawl ignores queries. */
function fetchableUrl(raw: string, crawler: CrawlerSettings): string | undefined {
  try {
    const url = new URL(raw);
    url.hash = '';
    if (crawler.ignoreQueryParameters) url.search = '';
    return url.href;
  } catch {
    return undefined;
  }
}
