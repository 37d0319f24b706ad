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

/**
 * Jobs whose frontier this process saw reach its limit. A frontier never shrinks, so their
 * later pages skip link filtering and the frontier's transaction altogether: on a crawl of N
 * pages that is every page but the first few dozen. Bounded, oldest forgotten first; a job
 * forgotten (or never seen full here) only costs the check again.
 */
const fullFrontiers = new Set<string>();
const FULL_FRONTIERS_KEPT = 1_000;

function rememberFull(jobId: string): void {
  fullFrontiers.add(jobId);
  if (fullFrontiers.size > FULL_FRONTIERS_KEPT) fullFrontiers.delete(fullFrontiers.values().next().value!);
}

/**
 * Resolves to the number of pages added to the frontier. Once the frontier is full, links are
 * neither filtered nor recorded as blocked by robots.txt: none of them would be crawled.
 */
export async function discover(
  deps: ActivityDeps,
  robotsFor: RobotsLookup,
  jobId: string,
  crawler: CrawlerSettings,
  links: readonly string[],
  depth: number,
): Promise<number> {
  if (fullFrontiers.has(jobId)) return 0;
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
  const { added, full } = await enqueuePages(deps.db, jobId, crawler.limit, candidates);
  if (full) rememberFull(jobId);
  return added;
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
