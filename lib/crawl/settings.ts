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
}

export interface FrontierPage {
  url: string;
  urlKey: string;
  depth: number;
}
