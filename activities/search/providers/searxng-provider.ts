/**
 * `searxng`: a SearXNG instance's JSON API (SEARXNG_ENDPOINT; `json` must be in its
 * `search.formats`). Pages are fetched until `limit` results are in, de-duplicated by URL. A
 * failing or unreachable instance is a SEARCH_PROVIDER_ERROR (502), never an empty success.
 */
import { NonRetryablePageError, PageError } from '../../../lib/errors.js';
import type { ImageResult, NewsResult, SearchProvider, SearchQuery, SearchResult, WebResult } from '../provider.js';

interface SearxResult {
  url?: string;
  title?: string;
  content?: string;
  publishedDate?: string | null;
  thumbnail?: string;
  img_src?: string;
  resolution?: string;
}

/** SearXNG pages hold about 10–20 results; a query with few matches stops on an empty page. */
const MAX_PAGES = 10;

const CATEGORY_QUERY = { github: 'site:github.com', research: 'site:arxiv.org', pdf: 'filetype:pdf' } as const;

export function createSearxngProvider(endpoint: string): SearchProvider {
  const base = endpoint.replace(/\/+$/, '');
  return {
    name: 'searxng',
    async search(q: SearchQuery) {
      const query = [q.query, ...q.categories.map((c) => CATEGORY_QUERY[c])].join(' ');
      const seen = new Set<string>();
      const results: SearchResult[] = [];
      const unresponsive = new Set<string>();
      for (let page = 1; page <= MAX_PAGES && results.length < q.limit; page++) {
        const params = new URLSearchParams({ q: query, format: 'json', pageno: String(page), categories: q.source === 'web' ? 'general' : q.source });
        if (q.lang) params.set('language', q.country ? `${q.lang}-${q.country.toUpperCase()}` : q.lang);
        if (q.range?.searxng) params.set('time_range', q.range.searxng);
        // SearXNG's levels are 0 (off), 1 (moderate) and 2 (strict); Firecrawl's `safe` is on or off.
        if (q.safe !== undefined) params.set('safesearch', q.safe ? '2' : '0');
        const body = await fetchPage(`${base}/search?${params}`, q.signal);
        for (const [engine] of body.unresponsive_engines ?? []) unresponsive.add(String(engine));
        const fresh = (body.results ?? []).filter((r): r is SearxResult & { url: string } => typeof r.url === 'string' && !seen.has(r.url));
        if (fresh.length === 0) break;
        for (const r of fresh) {
          if (results.length >= q.limit) break;
          seen.add(r.url);
          const date = r.publishedDate ? new Date(r.publishedDate) : undefined;
          // Ranges SearXNG's time_range cannot express (an hour, a custom range) are applied here.
          if (date && ((q.range?.from && date < q.range.from) || (q.range?.to && date >= q.range.to))) continue;
          results.push(toResult(q.source, r, results.length + 1, date));
        }
      }
      const warnings = [
        unresponsive.size > 0 && `Some search engines did not answer: ${[...unresponsive].join(', ')}.`,
        q.location && 'SearXNG has no location filter; location was ignored.',
        // Its engines' snippets are theirs: Trawl has no copy of those pages to pick passages from.
        q.highlights === true && "highlights: SearXNG's results carry their engines' own snippets, not passages Trawl picked.",
      ].filter(Boolean);
      return { results, ...(warnings.length > 0 && { warning: warnings.join(' ') }) };
    },
  };
}

async function fetchPage(url: string, signal: AbortSignal): Promise<{ results?: SearxResult[]; unresponsive_engines?: unknown[][] }> {
  let response: Response;
  try {
    response = await fetch(url, { signal, headers: { accept: 'application/json' } });
  } catch (err) {
    if (signal.aborted) throw err;
    throw new PageError('SEARCH_PROVIDER_ERROR', `The SearXNG instance could not be reached: ${(err as Error).message}`, { cause: err });
  }
  if (response.status === 403) {
    await response.body?.cancel();
    throw new NonRetryablePageError('SEARCH_PROVIDER_ERROR', 'The SearXNG instance refused format=json (403): add json to search.formats in its settings.yml');
  }
  if (!response.ok) {
    await response.body?.cancel();
    const error = `The SearXNG instance answered ${response.status}`;
    throw response.status >= 500 || response.status === 429 ? new PageError('SEARCH_PROVIDER_ERROR', error) : new NonRetryablePageError('SEARCH_PROVIDER_ERROR', error);
  }
  try {
    return (await response.json()) as { results?: SearxResult[]; unresponsive_engines?: unknown[][] };
  } catch {
    throw new NonRetryablePageError('SEARCH_PROVIDER_ERROR', 'The SearXNG instance answered something other than JSON');
  }
}

function toResult(source: SearchQuery['source'], r: SearxResult & { url: string }, position: number, date?: Date): SearchResult {
  const title = r.title ?? '';
  if (source === 'news') {
    const news: NewsResult = { url: r.url, title, snippet: r.content ?? '', position };
    if (date && !Number.isNaN(date.getTime())) news.date = date.toISOString();
    const image = r.thumbnail || r.img_src;
    if (image) news.imageUrl = image;
    return news;
  }
  if (source === 'images') {
    const [width, height] = (r.resolution ?? '').split(/\s*[x×]\s*/).map(Number);
    const image: ImageResult = { url: r.url, title, imageUrl: r.img_src ?? r.thumbnail ?? r.url, position };
    if (width && height) Object.assign(image, { imageWidth: width, imageHeight: height });
    return image;
  }
  const web: WebResult = { url: r.url, title, description: r.content ?? '', position };
  return web;
}
