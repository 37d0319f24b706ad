/**
 * Relevance for the query-directed crawl (a Trawl extension, `query` on POST /v2/crawl): how well
 * a link and a page match the query, how much of the query the relevant pages cover, and when the
 * crawl should stop. Pure: no I/O; the frontier keeps the state (db/repositories/crawl-focus.ts).
 *
 * Scores are BM25's term saturation and length normalisation, divided by the most a query term
 * can add (k1 + 1), so every score lies in [0, 1) and one `minScore` means the same for links of
 * any page. Query terms weigh alike: BM25's IDF needs a corpus, and the one at hand, the links of
 * one page, gives a term that a relevant section repeats in every link (`/solar/...`) almost no
 * weight, which is the opposite of what a focused crawl wants.
 */
import type { FocusSettings } from './settings.js';
import { STOPWORDS, safeDecode, tokenize } from './tokens.js';

/** More would make the per-term coverage counts a large array to update per page. */
export const MAX_QUERY_TERMS = 32;

const K1 = 1.2;
const B = 0.75;
/** A page's length is compared with this many terms (a short article): a crawl has no average yet. */
const PAGE_AVERAGE_TERMS = 400;
/** The anchor text says most about its target: its terms count twice. */
const ANCHOR_WEIGHT = 2;

/** A link as the page shows it: its text (and title, image alt) and the text of its block around it. */
export interface LinkText {
  url: string;
  text: string;
  around: string;
}

/** Why a query-directed crawl stopped. */
export type StopReason = 'coverage_reached' | 'saturated' | 'no_relevant_pages' | 'limit_reached';

/**
 * An English plural folded to its singular (Harman's S-stemmer), so `panels` finds `panel`;
 * nothing more aggressive, since a wrong stem makes two unrelated words one.
 */
export function stem(word: string): string {
  if (word.length <= 3 || !word.endsWith('s')) return word;
  if (word.endsWith('ies') && !word.endsWith('eies') && !word.endsWith('aies')) return `${word.slice(0, -3)}y`;
  if (word.endsWith('es') && !/[aeo]es$/.test(word)) return word.slice(0, -1);
  if (/[us]s$/.test(word)) return word;
  return word.slice(0, -1);
}

/** The terms of a text: its words, stopwords dropped, plurals folded. */
export function terms(text: string): string[] {
  return tokenize(text)
    .filter((token) => !STOPWORDS.has(token))
    .map(stem);
}

/** The query's distinct terms, in the order it gives them; empty when it has none to look for. */
export function queryTerms(query: string): string[] {
  return [...new Set(terms(query))];
}

/** The terms of a URL's path and query string; the host is the site's, not the page's. */
export function urlTerms(url: string): string[] {
  try {
    const parsed = new URL(url);
    return terms(safeDecode(`${parsed.pathname} ${parsed.search}`));
  } catch {
    return [];
  }
}

function counts(list: readonly string[]): Map<string, number> {
  const map = new Map<string, number>();
  for (const term of list) map.set(term, (map.get(term) ?? 0) + 1);
  return map;
}

/** BM25 of one document against the query, query terms weighted alike, scaled into [0, 1). */
function bm25(tf: Map<string, number>, length: number, averageLength: number, query: readonly string[]): number {
  if (query.length === 0) return 0;
  const norm = K1 * (1 - B + (B * length) / averageLength);
  let sum = 0;
  for (const term of query) {
    const f = tf.get(term) ?? 0;
    if (f > 0) sum += (f * (K1 + 1)) / (f + norm);
  }
  return round(sum / (query.length * (K1 + 1)));
}

function round(score: number): number {
  return Math.round(score * 10_000) / 10_000;
}

/**
 * Each link's score: its anchor text (twice), its URL's terms and the text around it, as one
 * document among the page's links (their average length normalises each one's).
 */
export function linkScores(links: readonly LinkText[], query: readonly string[]): number[] {
  const documents = links.map((link) => {
    const anchor = terms(link.text);
    return [...Array.from({ length: ANCHOR_WEIGHT }, () => anchor).flat(), ...urlTerms(link.url), ...terms(link.around)];
  });
  const average = Math.max(1, documents.reduce((sum, d) => sum + d.length, 0) / Math.max(1, documents.length));
  return documents.map((d) => bm25(counts(d), d.length, average, query));
}

/** A page's score on arrival, and which query terms it holds (the coverage's evidence). */
export interface PageRelevance {
  score: number;
  /** Per query term, in the query's order: whether the page holds it. */
  hits: boolean[];
}

export function pageRelevance(text: string, query: readonly string[]): PageRelevance {
  const list = terms(text);
  const tf = counts(list);
  return { score: bm25(tf, list.length, PAGE_AVERAGE_TERMS, query), hits: query.map((term) => tf.has(term)) };
}

/**
 * How much of the query the relevant pages cover: per term, the relevant pages holding it out of
 * `evidence` (capped at 1), averaged over the terms.
 */
export function coverage(pagesPerTerm: readonly number[], evidence: number): number {
  if (pagesPerTerm.length === 0) return 0;
  const sum = pagesPerTerm.reduce((s, n) => s + Math.min(1, n / evidence), 0);
  return round(sum / pagesPerTerm.length);
}

/** What the frontier knows of a query-directed crawl's progress (db/repositories/crawl-focus.ts). */
export interface FocusProgress {
  /** Per query term, the relevant pages that hold it. */
  pagesPerTerm: number[];
  /** Pages in a row, up to the last, that scored below minScore. */
  streak: number;
  /** Pages claimed: what counts against `limit`. */
  claimed: number;
}

/** A stop decided by the pages scraped so far, or undefined while the crawl should go on. */
export function earlyStop(progress: FocusProgress, focus: FocusSettings): StopReason | undefined {
  if (focus.coverage !== undefined && coverage(progress.pagesPerTerm, focus.evidence) >= focus.coverage) return 'coverage_reached';
  if (focus.saturation !== undefined && progress.streak >= focus.saturation) return 'saturated';
  return undefined;
}

/** Why a crawl with nothing left to claim stopped: an early stop, else its limit, else its frontier ran out of relevant links. */
export function finalStop(progress: FocusProgress, focus: FocusSettings, limit: number): StopReason {
  return earlyStop(progress, focus) ?? (progress.claimed >= limit ? 'limit_reached' : 'no_relevant_pages');
}
