/** The crawl's own settings and frontier entries, shared by the API, the crawl workflow and the page activities. */

/** Crawler settings the page activities need to filter discovered links. */
export interface CrawlerSettings {
  startUrl: string;
  includePaths: string[];
  excludePaths: string[];
  regexOnFullURL: boolean;
  maxDiscoveryDepth?: number;
  limit: number;
  sitemap: 'include' | 'skip' | 'only';
  crawlEntireDomain: boolean;
  allowSubdomains: boolean;
  allowExternalLinks: boolean;
  ignoreRobotsTxt: boolean;
  ignoreQueryParameters: boolean;
  deduplicateSimilarURLs: boolean;
  /** How the crawl's own requests leave (robots.txt, sitemaps), as its pages do. @default basic, no country */
  via?: SiteFetchRoute;
  /** A query-directed crawl (the request's `query`): best first, with its own stop rules. */
  focus?: FocusSettings;
}

/** The request's `query`, resolved: what lib/crawl/relevance.ts scores against and stops on. */
export interface FocusSettings {
  query: string;
  /** The query's terms (relevance.ts queryTerms), in its order. */
  terms: string[];
  /** Links scoring below it are not followed; pages below it are not relevant. */
  minScore: number;
  /** Stop once coverage reaches this. */
  coverage?: number;
  /** Relevant pages per term for that term's full coverage. */
  evidence: number;
  /** Stop after this many pages in a row below minScore. */
  saturation?: number;
}

/**
 * How a job meets a site outside its pages: the proxy pool and country its robots.txt and sitemaps
 * are fetched through, and the robots.txt group it obeys.
 */
export interface SiteFetchRoute {
  proxy: 'basic' | 'enhanced' | 'auto' | 'stealth';
  country?: string;
  /** The request's `robotsUserAgent`: the group of robots.txt read for it. @default TrawlBot */
  robotsUserAgent?: string;
}

export interface FrontierPage {
  url: string;
  urlKey: string;
  depth: number;
  /** A query-directed crawl's: the link's score, and the page it was found on (none for the start page and sitemap URLs). */
  score?: number;
  parentUrl?: string;
}
