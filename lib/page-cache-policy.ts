/**
 * Whether a scrape may read or write the team's page cache. Pure, so the rules can be read and
 * tested next to Firecrawl's (wire reference §8.9).
 *
 * - Options that make the fetch itself unlike any other (waitFor, actions, custom headers, the
 *   stealth pool) and changeTracking (which must compare a fresh fetch) bypass the cache: no
 *   read, no write, and no `cacheState` in the metadata.
 * - `maxAge: 0` never reads, but a fresh copy is still stored unless `storeInCache` is false, so
 *   `maxAge: 0` also refreshes the cache for later scrapes.
 */
import type { PageOutputs } from '../contracts/page-outputs.js';
import type { ScrapeOptions } from '../contracts/scrape-options.js';

export type PageCachePolicy =
  | { mode: 'bypass' }
  | {
      mode: 'use';
      /** Serve a copy younger than this many ms; 0 never serves one. */
      maxAgeMs: number;
      store: boolean;
    };

export type PageCachePolicyOptions = Pick<
  ScrapeOptions,
  'maxAge' | 'storeInCache' | 'waitFor' | 'actions' | 'headers' | 'proxy'
>;

export function pageCachePolicy(options: PageCachePolicyOptions, outputs: Pick<PageOutputs, 'changeTracking'>): PageCachePolicy {
  const bypass =
    options.waitFor > 0 ||
    Boolean(options.actions?.length) ||
    Object.keys(options.headers ?? {}).length > 0 ||
    options.proxy === 'stealth' ||
    Boolean(outputs.changeTracking);
  if (bypass) return { mode: 'bypass' };
  return { mode: 'use', maxAgeMs: options.maxAge, store: options.storeInCache };
}
