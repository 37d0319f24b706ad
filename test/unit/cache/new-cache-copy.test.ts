/** newCacheCopy (db/repositories/page-cache.ts): what a fresh page's copy carries, and what travels apart. */
import { describe, expect, it } from 'vitest';
import { newCacheCopy } from '../../../db/repositories/page-cache.js';

const place = { teamId: 't', key: 'k', url: 'https://example.com/', cachedAt: new Date(0) };

describe('newCacheCopy', () => {
  it('keeps the markdown apart from the Document JSON, and the rest of the scrape as the outcome', () => {
    const copy = newCacheCopy(place, { document: { markdown: '# Hi', metadata: { title: 'Hi' } }, statusCode: 200, links: ['https://example.com/a'] });
    expect(copy).toMatchObject(place);
    expect(copy.markdown).toBe('# Hi');
    expect(JSON.parse(copy.document)).toEqual({ metadata: { title: 'Hi' } });
    expect(JSON.parse(copy.outcome)).toEqual({ statusCode: 200, links: ['https://example.com/a'] });
  });

  it('keeps a Document without markdown whole', () => {
    const copy = newCacheCopy(place, { document: { html: '<p>x</p>', metadata: {} } });
    expect(copy.markdown).toBeUndefined();
    expect(JSON.parse(copy.document)).toEqual({ html: '<p>x</p>', metadata: {} });
  });
});
