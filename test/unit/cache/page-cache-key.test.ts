/** lib/page-cache-key.ts: which scrapes share a cached copy, and which never do. */
import { describe, expect, it } from 'vitest';
import { scrapeOptionsSchema } from '../../../contracts/scrape-options.js';
import { pageCacheKey } from '../../../lib/page-cache-key.js';

const options = (extra: Record<string, unknown> = {}) => scrapeOptionsSchema.parse(extra);
const URL_A = 'https://example.com/docs/page?x=1';

describe('pageCacheKey', () => {
  it('is stable and a sha256 hex digest', () => {
    expect(pageCacheKey(URL_A, options())).toBe(pageCacheKey(URL_A, options()));
    expect(pageCacheKey(URL_A, options())).toMatch(/^[0-9a-f]{64}$/);
  });

  it('folds spellings of one URL: fragment, trailing slash, host case, escapes', () => {
    const key = pageCacheKey('https://example.com/docs/page?x=1', options());
    expect(pageCacheKey('https://EXAMPLE.com/docs/page/?x=1#top', options())).toBe(key);
    expect(pageCacheKey('https://example.com/%64ocs/page?x=1', options())).toBe(key);
  });

  it('keeps URLs that may serve different pages apart: scheme, www, query', () => {
    const key = pageCacheKey(URL_A, options());
    expect(pageCacheKey('http://example.com/docs/page?x=1', options())).not.toBe(key);
    expect(pageCacheKey('https://www.example.com/docs/page?x=1', options())).not.toBe(key);
    expect(pageCacheKey('https://example.com/docs/page?x=2', options())).not.toBe(key);
  });

  it.each([
    ['mobile', { mobile: true }],
    ['location country', { location: { country: 'de' } }],
    ['location languages', { location: { country: 'US', languages: ['fr-FR'] } }],
    ['blockAds', { blockAds: false }],
    ['a screenshot', { formats: ['markdown', 'screenshot'] }],
    ['a full-page screenshot', { formats: ['markdown', { type: 'screenshot', fullPage: true }] }],
    ['screenshot quality', { formats: ['markdown', { type: 'screenshot', quality: 50 }] }],
    ['screenshot viewport', { formats: ['markdown', { type: 'screenshot', viewport: { width: 800, height: 600 } }] }],
    ['another format', { formats: ['markdown', 'html'] }],
    ['onlyMainContent', { onlyMainContent: false }],
    ['includeTags', { includeTags: ['main'] }],
    ['excludeTags', { excludeTags: ['nav'] }],
    ['removeBase64Images', { removeBase64Images: false }],
    ['parsers', { parsers: [] }],
    ['PDF page limit', { parsers: [{ type: 'pdf', maxPages: 3 }] }],
    ['TLS verification (an unverified copy never satisfies a verified request)', { skipTlsVerification: false }],
  ])('changes with %s', (_name, extra) => {
    expect(pageCacheKey(URL_A, options(extra))).not.toBe(pageCacheKey(URL_A, options()));
  });

  it.each([
    ['timeout', { timeout: 60_000 }],
    ['proxy pool', { proxy: 'auto' }],
    ['maxAge', { maxAge: 1000 }],
    ['storeInCache', { storeInCache: false }],
    ['the changeTracking format (computed per request)', { formats: ['markdown', { type: 'changeTracking' }] }],
  ])('ignores %s, which does not change the content', (_name, extra) => {
    expect(pageCacheKey(URL_A, options(extra))).toBe(pageCacheKey(URL_A, options()));
  });

  it('ignores the order of formats, tag lists and object keys', () => {
    const a = options({
      formats: ['html', { type: 'screenshot', fullPage: true, quality: 80 }, 'markdown'],
      includeTags: ['main', 'article'],
    });
    const b = options({
      formats: ['markdown', { quality: 80, fullPage: true, type: 'screenshot' }, 'html'],
      includeTags: ['article', 'main'],
    });
    expect(pageCacheKey(URL_A, a)).toBe(pageCacheKey(URL_A, b));
  });
});
