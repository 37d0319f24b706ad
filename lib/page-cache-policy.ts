/**
 * Whether a scrape may read or write the team's page cache. Pure, so the rules can be read and
 * tested next to Firecrawl's (wire reference §8.9).
 *
 * - Options that make the fetch itself unlike any other (waitFor, actions, custom headers, the
 *   stealth pool) and changeTracking (which must compare a fresh fetch) bypass the cache: no
 *   read, no write, and no `cacheState` in the metadata.
 * - `maxAge: 0` never reads, but a fresh copy is still stored unless `storeInCache` is false, so
 *   `maxAge: 0` also refreshes the cache for later scrapes.
 * - `lockdown` and `minAge` answer only from the cache (`cacheOnly`), never fetching: lockdown
 *   takes copies up to two years old unless maxAge says otherwise (Firecrawl's default, so every
 *   copy kept is eligible), minAge copies at least that old and, without maxAge, of any age.
 * - A zero-data-retention page may read the team's copies but never stores one.
 * - A page scraped with a browser profile is that profile's view (its cookies), so it bypasses too;
 *   so does one fetched through the caller's own proxy (X-Proxy-Url), which may see what nothing
 *   else does (its own network, its country), and which asked for the page as that proxy sees it.
 */
import type { PageOutputs } from '../contracts/page-outputs.js';
import type { ScrapeOptions } from '../contracts/scrape-options.js';

export const DEFAULT_MAX_AGE_MS = 2 * 24 * 60 * 60 * 1000;
export const LOCKDOWN_DEFAULT_MAX_AGE_MS = 2 * 365 * 24 * 60 * 60 * 1000;

export type PageCachePolicy =
  | { mode: 'bypass' }
  | {
      mode: 'use';
      /** Serve a copy younger than this many ms; 0 never serves one. */
      maxAgeMs: number;
      store: boolean;
      /** Never fetch: the page is a copy from the cache or a miss (the option that asked for it). */
      cacheOnly?: { by: 'lockdown' | 'minAge'; minAgeMs: number };
    };

export type PageCachePolicyOptions = Pick<
  ScrapeOptions,
  'maxAge' | 'minAge' | 'lockdown' | 'storeInCache' | 'waitFor' | 'actions' | 'headers' | 'proxy' | 'zeroDataRetention' | 'profile' | 'sealedProxy'
>;

export function pageCachePolicy(options: PageCachePolicyOptions, outputs: Pick<PageOutputs, 'changeTracking'>): PageCachePolicy {
  const bypass =
    options.waitFor > 0 ||
    Boolean(options.actions?.length) ||
    Object.keys(options.headers ?? {}).length > 0 ||
    options.proxy === 'stealth' ||
    options.profile !== undefined ||
    options.sealedProxy !== undefined ||
    Boolean(outputs.changeTracking);
  if (bypass) return { mode: 'bypass' };
  if (options.lockdown) {
    const maxAgeMs = options.maxAge ?? LOCKDOWN_DEFAULT_MAX_AGE_MS;
    return { mode: 'use', maxAgeMs, store: false, cacheOnly: { by: 'lockdown', minAgeMs: options.minAge ?? 0 } };
  }
  if (options.minAge !== undefined) {
    return { mode: 'use', maxAgeMs: options.maxAge ?? LOCKDOWN_DEFAULT_MAX_AGE_MS, store: false, cacheOnly: { by: 'minAge', minAgeMs: options.minAge } };
  }
  return { mode: 'use', maxAgeMs: options.maxAge ?? DEFAULT_MAX_AGE_MS, store: options.storeInCache && !options.zeroDataRetention };
}
