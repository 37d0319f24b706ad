/**
 * `index`, the default provider: Postgres full-text search over the pages this team has stored
 * (db/repositories/search-index.ts). `news` is the pages with article metadata; `images` the
 * images of matching pages, with their alt text. It knows only what Trawl has scraped.
 */
import type { Db } from '../../../db/connect.js';
import { searchIndex, type IndexQuery } from '../../../db/repositories/search-index.js';
import { CATEGORY_HOSTS, type SearchProvider, type SearchQuery, type SearchResult } from '../provider.js';

export function createIndexProvider(db: Db): SearchProvider {
  return {
    name: 'index',
    async search(q: SearchQuery) {
      const base: IndexQuery = {
        teamId: q.teamId,
        query: q.query,
        limit: q.limit,
        lang: q.lang,
        from: q.range?.from,
        to: q.range?.to,
        hosts: [...(q.includeDomains ?? []), ...q.categories.flatMap((c) => (c === 'pdf' ? [] : CATEGORY_HOSTS[c]))],
        excludeHosts: q.excludeDomains,
        pdfOnly: q.categories.includes('pdf'),
        articlesOnly: q.source === 'news',
      };
      const hits = await searchIndex(db, base);
      let results: SearchResult[];
      if (q.source === 'web') {
        results = hits.map((h, i) => ({ url: h.url, title: h.title, description: h.description || h.snippet, position: i + 1 }));
      } else if (q.source === 'news') {
        results = hits.map((h, i) => ({ url: h.url, title: h.title, snippet: h.snippet || h.description, date: h.date.toISOString(), position: i + 1 }));
      } else {
        const seen = new Set<string>();
        results = hits
          .flatMap((h) => h.images.map((img) => ({ url: h.url, title: img.alt || h.title, imageUrl: img.src })))
          .filter((img) => !seen.has(img.imageUrl) && seen.add(img.imageUrl))
          .slice(0, q.limit)
          .map((img, i) => ({ ...img, position: i + 1 }));
      }
      return {
        results,
        ...(q.country || q.location ? { warning: 'The built-in index has no notion of country or location; they were ignored.' } : {}),
      };
    },
  };
}
