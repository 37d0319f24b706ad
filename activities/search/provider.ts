/**
 * What a search provider is: one module per provider (activities/search/providers/*), chosen by
 * SEARCH_PROVIDER in activities/search/providers/registry.ts. A provider answers one source at a time; the
 * search activity fans out over the sources asked for and applies the domain filters.
 */
import type { TimeRange } from '../../lib/search/tbs.js';

export type SearchSource = 'web' | 'news' | 'images';
export type SearchCategory = 'github' | 'research' | 'pdf';

export interface SearchQuery {
  teamId: string;
  query: string;
  source: SearchSource;
  limit: number;
  categories: SearchCategory[];
  range?: TimeRange;
  lang?: string;
  country?: string;
  location?: string;
  includeDomains?: string[];
  excludeDomains?: string[];
  /**
   * Query-relevant excerpts as web descriptions and news snippets (Firecrawl's default); false
   * keeps the page's own description. Undefined means the default.
   */
  highlights?: boolean;
  /** Safe search: true filters explicit results, false asks for none; undefined leaves the provider's default. */
  safe?: boolean;
  signal: AbortSignal;
}

export interface WebResult {
  url: string;
  title: string;
  description: string;
  position: number;
  category?: SearchCategory;
}

export interface NewsResult {
  url: string;
  title: string;
  snippet: string;
  date?: string;
  imageUrl?: string;
  position: number;
}

export interface ImageResult {
  url: string;
  title: string;
  imageUrl: string;
  imageWidth?: number;
  imageHeight?: number;
  position: number;
}

export type SearchResult = WebResult | NewsResult | ImageResult;

export interface SearchProvider {
  /** Named in errors and warnings. */
  readonly name: string;
  search(query: SearchQuery): Promise<{ results: SearchResult[]; warning?: string }>;
}

/** Hosts a category restricts web results to; `pdf` is a path rule instead. */
export const CATEGORY_HOSTS: Record<Exclude<SearchCategory, 'pdf'>, string[]> = {
  github: ['github.com'],
  research: ['arxiv.org', 'scholar.archive.org', 'pubmed.ncbi.nlm.nih.gov', 'semanticscholar.org', 'researchgate.net', 'nature.com', 'biorxiv.org'],
};

/** Whether `host` is `domain` or one of its subdomains. */
export function onDomain(host: string, domain: string): boolean {
  const h = host.toLowerCase();
  const d = domain.toLowerCase().replace(/^\*\./, '');
  return h === d || h.endsWith(`.${d}`);
}

/** The request's include/exclude domain lists, on any result's page URL. */
export function passesDomainFilters(url: string, query: Pick<SearchQuery, 'includeDomains' | 'excludeDomains'>): boolean {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return false;
  }
  if (query.includeDomains?.length && !query.includeDomains.some((d) => onDomain(host, d))) return false;
  if (query.excludeDomains?.some((d) => onDomain(host, d))) return false;
  return true;
}
