/**
 * The pipeline's fetch stage (activities/page/pipeline.ts): the page from the team's cache when
 * the options and owner allow it, else from the scraper. A fresh page's copy for the cache is
 * returned, not stored: the policy stores it with the page, so a page costs one commit, not two.
 */
import { findCachedPage, newCacheCopy, type CachedPage, type CacheCopy } from '../../db/repositories/page-cache.js';
import { pageCacheKey } from '../../lib/page-cache-key.js';
import { pageCachePolicy } from '../../lib/page-cache-policy.js';
import { scrapeUrl, type ScrapeOutcome, type ScrapeRequest } from '../../scraper/scrape.js';
import type { ActivityDeps } from '../deps.js';

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

export interface FetchedDocument {
  outcome: ScrapeOutcome;
  /** Set for a fresh page the cache should keep. */
  cacheCopy?: CacheCopy;
}

/**
 * The caller bills a hit like a fetch: Firecrawl charges cache hits, and the Document is
 * delivered and stored just the same.
 */
export async function fetchPage(req: ScrapeRequest, deps: ActivityDeps, owner: PageOwner): Promise<FetchedDocument> {
  const policy = pageCachePolicy(req.options, req.outputs);
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
      // Serialised now, before the metadata below and the enrich stage's fields are added.
      cacheCopy = newCacheCopy({ teamId: owner.teamId, key: cacheKey, url: req.url, cachedAt }, outcome);
    }
    // Without a read (maxAge 0, crawl pages) there is no cacheState, as in Firecrawl.
    if (reads) {
      outcome.document.metadata.cacheState = 'miss';
      // Provenance: the time a later hit will report, so callers can match the two.
      if (cacheCopy) outcome.document.metadata.cachedAt = cachedAt.toISOString();
    }
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
  // Written by fetchPage from a ScrapeOutcome; the row holds nothing else.
  return { ...(cached.outcome as Omit<ScrapeOutcome, 'document'>), document };
}
