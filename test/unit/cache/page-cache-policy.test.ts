/** lib/page-cache-policy.ts: when the cache is read, written or bypassed (wire reference §8.9). */
import { describe, expect, it } from 'vitest';
import { resolveOutputs } from '../../../contracts/page-outputs.js';
import { scrapeOptionsSchema } from '../../../contracts/scrape-options.js';
import { pageCachePolicy } from '../../../lib/page-cache-policy.js';

const policy = (extra: Record<string, unknown> = {}) => {
  const options = scrapeOptionsSchema.parse(extra);
  return pageCachePolicy(options, resolveOutputs(options.formats));
};

describe('pageCachePolicy', () => {
  it('reads copies up to two days old and stores fresh ones by default (v2)', () => {
    expect(policy()).toEqual({ mode: 'use', maxAgeMs: 2 * 24 * 60 * 60 * 1000, store: true });
  });

  it('maxAge 0 never reads but still stores; storeInCache false never stores', () => {
    expect(policy({ maxAge: 0 })).toEqual({ mode: 'use', maxAgeMs: 0, store: true });
    expect(policy({ storeInCache: false })).toMatchObject({ mode: 'use', store: false });
  });

  it.each([
    ['waitFor', { waitFor: 1000 }],
    ['actions', { actions: [{ type: 'click', selector: 'button' }] }],
    ['headers', { headers: { cookie: 'a=b' } }],
    ['the stealth pool', { proxy: 'stealth' }],
    ['changeTracking', { formats: ['markdown', { type: 'changeTracking' }] }],
  ])('%s bypasses the cache entirely, even with storeInCache true', (_name, extra) => {
    expect(policy({ ...extra, storeInCache: true })).toEqual({ mode: 'bypass' });
  });

  it('a zero-data-retention page reads the team\'s copies but never stores one, whatever storeInCache says', () => {
    const options = { ...scrapeOptionsSchema.parse({ storeInCache: true }), zeroDataRetention: true };
    expect(pageCachePolicy(options, resolveOutputs(options.formats))).toEqual({ mode: 'use', maxAgeMs: 2 * 24 * 60 * 60 * 1000, store: false });
  });

  it("a page through the caller's own proxy (X-Proxy-Url) bypasses: it asked for the page as that proxy sees it", () => {
    const options = { ...scrapeOptionsSchema.parse({}), sealedProxy: 'c2VhbGVk' };
    expect(pageCachePolicy(options, resolveOutputs(options.formats))).toEqual({ mode: 'bypass' });
  });

  it('empty headers and empty actions do not bypass', () => {
    expect(policy({ headers: {}, actions: [] })).toMatchObject({ mode: 'use' });
  });
});
