/**
 * What a page activity knows from the team's earlier scrapes: the page cache (served instead of a
 * fetch when young enough) and change-tracking snapshots (compared with the fresh markdown).
 * Both page activities scrape through here, so single scrapes, crawls and batches behave alike.
 */
import { hasFormat } from '../contracts/scrape-options.js';
import { findPreviousSnapshot, recordSnapshot } from '../db/repositories/change-history.js';
import { findCachedPage, storeCachedPage, type CachedPage, type CacheCopy } from '../db/repositories/page-cache.js';
import { pageCacheKey } from '../lib/page-cache-key.js';
import { pageCachePolicy } from '../lib/page-cache-policy.js';
import { normalizeUrl, urlKey } from '../lib/url/normalize.js';
import { changeTracking } from '../scraper/change-tracking/change-tracking.js';
import { scrapeUrl, type ScrapeOutcome, type ScrapeRequest } from '../scraper/scrape.js';
import type { ActivityDeps } from './deps.js';

export interface PageOwner {
  teamId: string;
  jobId: string;
  /**
   * False for crawl and batch pages: they always fetch (crawl politeness, cancellation and
   * progress are about real requests, and a crawl is how users refresh a site) but still store
   * what they fetched for later scrapes. They report no cacheState, as with maxAge 0.
   */
  cacheReads: boolean;
}

/**
 * scrapeUrl, answered from the team's cache when the options and owner allow it, with the
 * changeTracking field added when that format was asked for. The caller bills a hit like a fetch:
 * Firecrawl charges cache hits, and the Document is delivered and stored just the same.
 */
export async function scrapeWithHistory(
  req: ScrapeRequest,
  deps: ActivityDeps,
  owner: PageOwner,
): Promise<ScrapeOutcome> {
  const { outcome, cacheCopy } = await scrapeWithCacheCopy(req, deps, owner);
  if (cacheCopy) await storeCachedPage(deps.db, cacheCopy);
  return outcome;
}

/**
 * scrapeWithHistory, except that the fresh page's copy for the cache is returned, not stored: the
 * caller stores it in the transaction that stores the page (db/repositories/documents.ts), so the
 * page costs one commit instead of two.
 */
export async function scrapeWithCacheCopy(
  req: ScrapeRequest,
  deps: ActivityDeps,
  owner: PageOwner,
): Promise<{ outcome: ScrapeOutcome; cacheCopy?: CacheCopy }> {
  const policy = pageCachePolicy(req.options);
  const cacheKey = policy.mode === 'use' ? pageCacheKey(req.url, req.options) : undefined;
  const reads = owner.cacheReads && policy.mode === 'use' && policy.maxAgeMs > 0;
  if (cacheKey && reads) {
    const cached = await findCachedPage(deps.db, owner.teamId, cacheKey, policy.maxAgeMs);
    if (cached) return { outcome: fromCache(cached, req) };
  }

  const outcome = await scrapeUrl(req, deps);
  let cacheCopy: CacheCopy | undefined;
  if (cacheKey && policy.mode === 'use') {
    const cachedAt = new Date();
    if (policy.store && cacheable(outcome)) {
      // Serialised now, before the metadata below and the changeTracking field are added.
      const { document, ...rest } = outcome;
      cacheCopy = {
        teamId: owner.teamId,
        key: cacheKey,
        url: req.url,
        document: JSON.stringify(document),
        outcome: JSON.stringify(rest),
        cachedAt,
      };
    }
    // Without a read (maxAge 0, crawl pages) there is no cacheState, as in Firecrawl.
    if (reads) {
      outcome.document.metadata.cacheState = 'miss';
      // Provenance: the time a later hit will report, so callers can match the two.
      if (cacheCopy) outcome.document.metadata.cachedAt = cachedAt.toISOString();
    }
  }

  const tracked = hasFormat(req.options, 'changeTracking');
  if (tracked) {
    const key = {
      teamId: owner.teamId,
      urlKey: urlKey(normalizeUrl(req.url, { ignoreQueryParameters: false, deduplicateSimilarURLs: false })),
      tag: tracked.tag ?? '',
    };
    const markdown = typeof outcome.document.markdown === 'string' ? outcome.document.markdown : '';
    const seen = { markdown, statusCode: outcome.statusCode };
    const previous = await findPreviousSnapshot(deps.db, key, owner.jobId);
    outcome.document.changeTracking = changeTracking(previous, seen, tracked.modes);
    // A server error page is not the page's content: the next scrape compares with the last real one.
    if (outcome.statusCode < 500 && outcome.statusCode !== 429) await recordSnapshot(deps.db, key, owner.jobId, seen);
  }
  return { outcome, cacheCopy };
}

/**
 * Only successful pages are cached, so a passing outage is not served for days. Screenshots are
 * not: their URLs expire with the media retention (hours), long before a cached copy would.
 */
function cacheable(outcome: ScrapeOutcome): boolean {
  return outcome.statusCode >= 200 && outcome.statusCode < 300 && outcome.document.screenshot === undefined;
}

function fromCache(cached: CachedPage, req: ScrapeRequest): ScrapeOutcome {
  const document = cached.document as ScrapeOutcome['document'];
  document.metadata = {
    ...document.metadata,
    sourceURL: req.sourceUrl,
    scrapeId: req.scrapeId,
    cacheState: 'hit',
    cachedAt: cached.cachedAt.toISOString(),
  };
  // Written by scrapeWithHistory from a ScrapeOutcome; the row holds nothing else.
  return { ...(cached.outcome as Omit<ScrapeOutcome, 'document'>), document };
}
