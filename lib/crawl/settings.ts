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
}
