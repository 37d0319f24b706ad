/**
 * The pipeline's fetch stage (activities/page/pipeline.ts): the page from the team's cache when
 * the options and owner allow it, else from the scraper. A fresh page's copy for the cache is
 * returned, not stored: the policy stores it with the page, so a page costs one commit, not two.
 */
import { findParseUpload } from '../../db/repositories/parse-uploads.js';
import { findCachedPage, newCacheCopy, type CachedPage, type CacheCopy } from '../../db/repositories/page-cache.js';
import { rememberedServerSecret } from '../../db/repositories/server-secrets.js';
import { CALLER_PROXY_SECRET, openCallerProxy } from '../../lib/caller-proxy.js';
import { NonRetryablePageError } from '../../lib/errors.js';
import { pageCacheKey } from '../../lib/page-cache-key.js';
import { pageCachePolicy } from '../../lib/page-cache-policy.js';
import { scrapeUrl, type ScrapeOutcome, type ScrapeRequest } from '../../scraper/scrape.js';
import type { ProfileState } from '../../scraper/types.js';
import type { StorageState } from '../browser/live-sessions.js';
import { loadProfile, saveProfile } from '../browser/profiles.js';
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
export async function fetchPage(req: ScrapeRequest, deps: ActivityDeps, owner: PageOwner, uploadId?: string): Promise<FetchedDocument> {
  // An upload is read from Postgres by id (its bytes never travel through Temporal) and never cached.
  if (uploadId) return { outcome: await scrapeUrl({ ...req, file: await uploadedFile(deps, owner.teamId, uploadId) }, deps) };
  const policy = pageCachePolicy(req.options, req.outputs);
  const cacheKey = policy.mode === 'use' ? pageCacheKey(req.url, req.options) : undefined;
  // A cache-only page (lockdown, minAge) reads whatever its owner, a batch too: it asked for nothing else.
  const cacheOnly = policy.mode === 'use' ? policy.cacheOnly : undefined;
  const reads = (owner.cacheReads || cacheOnly !== undefined) && policy.mode === 'use' && policy.maxAgeMs > 0;
  if (cacheKey && reads) {
    const cached = await findCachedPage(deps.db, owner.teamId, cacheKey, policy.maxAgeMs, cacheOnly?.minAgeMs);
    if (cached) return { outcome: fromCache(cached, req) };
  }
  if (cacheOnly) throw cacheMiss(cacheOnly.by);

  const outcome = await scrapeUrl({ ...req, profile: await profileOf(req, deps, owner.teamId), callerProxy: await callerProxyOf(req, deps, owner.teamId) }, deps);
  let cacheCopy: CacheCopy | undefined;
  if (cacheKey && policy.mode === 'use') {
    const cachedAt = new Date();
    if (policy.store && cacheable(outcome)) {
      // Serialised now, before the metadata below and the enrich stage's fields are added.
      // A query-directed crawl's relevance text is its markdown again, and only that crawl reads it.
      const { relevance: _relevance, ...cached } = outcome;
      cacheCopy = newCacheCopy({ teamId: owner.teamId, key: cacheKey, url: req.url, cachedAt }, cached);
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

/** `options.profile`: the team's saved state to start from, and where to save it back. */
async function profileOf(req: ScrapeRequest, deps: ActivityDeps, teamId: string): Promise<ProfileState | undefined> {
  const profile = req.options.profile;
  if (!profile) return undefined;
  const base = await loadProfile(deps.db, deps.profileKey, teamId, profile.name);
  return {
    state: base,
    ...(profile.saveChanges && {
      save: async (state: StorageState) => {
        await saveProfile(deps.db, deps.profileKey, teamId, profile.name, state, base);
      },
    }),
  };
}

/** `options.sealedProxy` (X-Proxy-Url), opened: see lib/caller-proxy.ts. */
async function callerProxyOf(req: ScrapeRequest, deps: ActivityDeps, teamId: string): Promise<string | undefined> {
  const sealed = req.options.sealedProxy;
  if (sealed === undefined) return undefined;
  const key = await rememberedServerSecret(deps.db, CALLER_PROXY_SECRET);
  try {
    return openCallerProxy(key, teamId, sealed);
  } catch {
    // Sealed for another team, or before the secret changed: no retry opens it.
    throw new NonRetryablePageError('BAD_REQUEST', 'The X-Proxy-Url of this job cannot be read on this server');
  }
}

async function uploadedFile(deps: ActivityDeps, teamId: string, uploadId: string) {
  const upload = await findParseUpload(deps.db, teamId, uploadId);
  if (!upload) throw new NonRetryablePageError('PARSE_FAILED', 'The uploaded file is no longer stored; upload it again');
  return { data: upload.data, filename: upload.filename };
}

/** Firecrawl's errors for a cache-only request the cache cannot answer; the URL is not logged. */
function cacheMiss(by: 'lockdown' | 'minAge'): NonRetryablePageError {
  return by === 'lockdown'
    ? new NonRetryablePageError(
        'SCRAPE_LOCKDOWN_CACHE_MISS',
        'No cached data is available for this request in lockdown mode. Lockdown mode only serves previously cached responses and never makes outbound requests. To resolve this, either disable lockdown mode to allow a fresh scrape, or try again after the URL has been scraped and cached.',
      )
    : new NonRetryablePageError(
        'SCRAPE_NO_CACHED_DATA',
        'No cached data is available for this URL that meets your specified age requirements. This error occurs when you use the minAge parameter to request only cached data, but there is no cached version of this URL (or no version within the specified age range). To resolve this, either remove the minAge parameter to allow a fresh scrape, or try again later after the URL has been scraped and cached.',
      );
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
