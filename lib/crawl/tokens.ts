/**
 * Words of URLs, link texts, pages and queries, as the map's ranking (map-rank.ts) and the
 * query-directed crawl's relevance (relevance.ts) compare them. Pure: no I/O.
 */

// Words that say nothing about a page; dropped from queries that have other words.
export const STOPWORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'by', 'for', 'from', 'how', 'in', 'is', 'it', 'of',
  'on', 'or', 'the', 'to', 'what', 'with',
]);

/** Lower-case letters and digits, accents folded: `Café-Crème` is `cafe`, `creme`. */
export function tokenize(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((token) => token !== '');
}

/** A query's distinct words, stopwords dropped unless the query has nothing else. */
export function queryTokens(query: string): string[] {
  const tokens = [...new Set(tokenize(query))];
  const meaningful = tokens.filter((token) => !STOPWORDS.has(token));
  return meaningful.length > 0 ? meaningful : tokens;
}

export function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
