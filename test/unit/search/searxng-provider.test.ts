/** The SearXNG provider against the fake instance: parameter mapping, paging, result shapes, and every failure as SEARCH_PROVIDER_ERROR. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchQuery } from '../../../activities/search/provider.js';
import { createSearxngProvider } from '../../../activities/search/providers/searxng-provider.js';
import { NonRetryablePageError, PageError } from '../../../lib/errors.js';
import { parseTbs } from '../../../lib/search/tbs.js';
import { closedPort } from '../../helpers/closed-port.js';
import { startFakeSearxng, type FakeSearxng } from '../../helpers/fake-searxng.js';

let searxng: FakeSearxng;

beforeAll(async () => {
  searxng = await startFakeSearxng();
});

afterAll(async () => {
  await searxng?.close();
});

const query = (over: Partial<SearchQuery> = {}): SearchQuery => ({
  teamId: 'team',
  query: 'otters',
  source: 'web',
  limit: 10,
  categories: [],
  signal: new AbortController().signal,
  ...over,
});

describe('searxng provider', () => {
  it('sends safe as SearXNG safesearch (2 on, 0 off, unset leaves the default) and says its snippets are not Trawl highlights', async () => {
    searxng.mode = 'ok';
    const provider = createSearxngProvider(searxng.url);
    const safesearch = async (safe: boolean | undefined) => {
      searxng.requests.length = 0;
      await provider.search(query({ safe }));
      return searxng.requests[0]!.get('safesearch');
    };
    expect([await safesearch(true), await safesearch(false), await safesearch(undefined)]).toEqual(['2', '0', null]);
    expect((await provider.search(query({ highlights: true }))).warning).toMatch(/engines' own snippets/);
    expect((await provider.search(query({ highlights: false }))).warning ?? '').not.toMatch(/snippets/);
  });

  it('maps source, categories, language and time range, and pages until the limit', async () => {
    searxng.mode = 'ok';
    searxng.requests.length = 0;
    const { results, warning } = await createSearxngProvider(`${searxng.url}/`).search(
      query({ limit: 23, categories: ['github', 'pdf'], lang: 'de', country: 'at', range: parseTbs('qdr:m', new Date()), location: 'Vienna' }),
    );
    expect(results).toHaveLength(23);
    expect(results[22]).toEqual({ url: 'https://general.example/23', title: 'otters site:github.com filetype:pdf general 23', description: expect.stringContaining('result 23'), position: 23 });
    expect(searxng.requests.map((p) => p.get('pageno'))).toEqual(['1', '2', '3']);
    expect(Object.fromEntries(searxng.requests[0]!)).toMatchObject({ q: 'otters site:github.com filetype:pdf', format: 'json', categories: 'general', language: 'de-AT', time_range: 'month' });
    expect(warning).toContain('slowengine');
    expect(warning).toContain('location');
  });

  it('stops on a page with nothing new, and answers news and images in their shapes', async () => {
    searxng.requests.length = 0;
    const provider = createSearxngProvider(searxng.url);
    const news = await provider.search(query({ source: 'news', limit: 100 }));
    expect(news.results).toHaveLength(25);
    expect(searxng.requests.map((p) => p.get('pageno'))).toEqual(['1', '2', '3', '4']);
    expect(news.results[0]).toEqual({ url: 'https://news.example/1', title: 'otters news 1', snippet: 'About otters, result 1', date: expect.any(String), imageUrl: 'https://img.example/news-1.jpg', position: 1 });
    const images = await provider.search(query({ source: 'images', limit: 2 }));
    expect(images.results).toEqual([
      { url: 'https://images.example/1', title: 'otters images 1', imageUrl: 'https://img.example/1.png', imageWidth: 640, imageHeight: 480, position: 1 },
      { url: 'https://images.example/2', title: 'otters images 2', imageUrl: 'https://img.example/2.png', imageWidth: 640, imageHeight: 480, position: 2 },
    ]);
  });

  it('applies what time_range cannot say to the results’ dates: an hour, a custom range’s end', async () => {
    const provider = createSearxngProvider(searxng.url);
    searxng.requests.length = 0;
    // The fake's news result n is n hours old.
    const lastHours = await provider.search(query({ source: 'news', limit: 10, range: { from: new Date(Date.now() - 3.5 * 3_600_000) } }));
    expect(lastHours.results.map((r) => r.url)).toEqual(['https://news.example/1', 'https://news.example/2', 'https://news.example/3']);
    expect(searxng.requests[0]!.has('time_range')).toBe(false);
    const older = await provider.search(query({ source: 'news', limit: 3, range: { to: new Date(Date.now() - 20.5 * 3_600_000) } }));
    expect(older.results.map((r) => [r.url, r.position])).toEqual([
      ['https://news.example/21', 1],
      ['https://news.example/22', 2],
      ['https://news.example/23', 3],
    ]);
  });

  it('turns an error answer, a refused format and an unreachable instance into SEARCH_PROVIDER_ERROR', async () => {
    searxng.mode = 'error';
    await expect(createSearxngProvider(searxng.url).search(query())).rejects.toSatisfy((e) => e instanceof PageError && e.code === 'SEARCH_PROVIDER_ERROR');
    searxng.mode = 'forbidden';
    await expect(createSearxngProvider(searxng.url).search(query())).rejects.toSatisfy(
      (e) => e instanceof NonRetryablePageError && e.code === 'SEARCH_PROVIDER_ERROR' && /search\.formats/.test(e.message),
    );
    searxng.mode = 'ok';
    const unreachable = createSearxngProvider(`http://127.0.0.1:${await closedPort()}`);
    await expect(unreachable.search(query())).rejects.toSatisfy((e) => e instanceof PageError && e.code === 'SEARCH_PROVIDER_ERROR' && /could not be reached/.test(e.message));
  });

  it('stops waiting when the request is cut off', async () => {
    searxng.mode = 'slow';
    try {
      const controller = new AbortController();
      const pending = createSearxngProvider(searxng.url).search(query({ signal: controller.signal }));
      controller.abort(new Error('deadline'));
      await expect(pending).rejects.toThrow();
    } finally {
      searxng.mode = 'ok';
    }
  });
});
