/**
 * The page cache key: which scrapes of a URL may share one cached Document. Everything that
 * changes the Document's content is in it (the page as fetched: URL, device, location, ad
 * blocking, screenshot settings; and the conversion: formats, main-content and tag filters,
 * base64 images, parsers), and so is `skipTlsVerification`: a copy fetched without checking the
 * certificate is never served to a request that demands the check. Options that only change how
 * the fetch is run (timeout, proxy pool) are not. The team is not in the key: it is a column of
 * its own, so no lookup can ever cross teams.
 *
 * Pure: no I/O, so it is unit tested on its own.
 */
import { createHash } from 'node:crypto';
import type { ScrapeOptions } from '../contracts/scrape-options.js';
import { normalizeUrl } from './url/normalize.js';

export type PageCacheKeyOptions = Pick<
  ScrapeOptions,
  | 'formats'
  | 'mobile'
  | 'location'
  | 'blockAds'
  | 'onlyMainContent'
  | 'includeTags'
  | 'excludeTags'
  | 'removeBase64Images'
  | 'parsers'
  | 'skipTlsVerification'
  | 'fastMode'
>;

/** A sha256 hex digest of the canonical JSON of the content-relevant parts of a scrape. */
export function pageCacheKey(url: string, options: PageCacheKeyOptions): string {
  const parts = {
    // http and https, or www and bare host, may serve different pages: only spelling is folded.
    url: normalizeUrl(url, { ignoreQueryParameters: false, deduplicateSimilarURLs: false }),
    mobile: options.mobile,
    location: options.location ? { country: options.location.country, languages: options.location.languages ?? [] } : null,
    blockAds: options.blockAds,
    // changeTracking is computed per request from the team's history, never taken from the cache.
    formats: options.formats
      .filter((f) => f.type !== 'changeTracking')
      .map(canonical)
      .sort(),
    onlyMainContent: options.onlyMainContent,
    includeTags: [...(options.includeTags ?? [])].sort(),
    excludeTags: [...(options.excludeTags ?? [])].sort(),
    removeBase64Images: options.removeBase64Images,
    parsers: options.parsers.map(canonical),
    skipTlsVerification: options.skipTlsVerification,
    // An unrendered JavaScript shell is another Document; only named when set, so keys made before it stay.
    ...(options.fastMode && { fastMode: true }),
  };
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/** JSON with object keys sorted, so `{a, b}` and `{b, a}` give one key. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
