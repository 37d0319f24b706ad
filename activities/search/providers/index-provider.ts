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
      // Highlights (Firecrawl's default) are the passages of the page around the query's words,
      // which ts_headline picked; without them, the page's own description.
      const text = (h: (typeof hits)[number]) => (q.highlights === false ? h.description || h.snippet : h.snippet || h.description);
      let results: SearchResult[];
      if (q.source === 'web') {
        results = hits.map((h, i) => ({ url: h.url, title: h.title, description: text(h), position: i + 1 }));
      } else if (q.source === 'news') {
        results = hits.map((h, i) => ({ url: h.url, title: h.title, snippet: text(h), date: h.date.toISOString(), position: i + 1 }));
      } else {
        const seen = new Set<string>();
        results = hits
          .flatMap((h) => h.images.map((img) => ({ url: h.url, title: img.alt || h.title, imageUrl: img.src })))
          .filter((img) => !seen.has(img.imageUrl) && seen.add(img.imageUrl))
          .slice(0, q.limit)
          .map((img, i) => ({ ...img, position: i + 1 }));
      }
      const warnings = [
        (q.country || q.location) && 'The built-in index has no notion of country or location; they were ignored.',
        // The team's own pages: nothing in the index says which are explicit.
        q.safe && 'The built-in index has no safe-search filter; safe was ignored.',
      ].filter(Boolean);
      return { results, ...(warnings.length > 0 && { warning: warnings.join(' ') }) };
    },
  };
}
