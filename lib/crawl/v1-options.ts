/**
 * v1 crawl requests name some options differently from v2. The v1 routes translate once, here,
 * and everything after that speaks v2 names only.
 *
 * Note: Firecrawl's v1 `maxDepth` measured URL path depth; like Firecrawl's own v2 translation we
 * treat it as link-hop depth (maxDiscoveryDepth), which is what users of it almost always meant.
 */

export type SitemapMode = 'include' | 'skip' | 'only';

/** The v1 fields that are renamed or reshaped in v2. */
export interface CrawlOptionsV1Renamed {
  maxDepth?: number;
  maxDiscoveryDepth?: number;
  allowBackwardLinks?: boolean;
  allowBackwardCrawling?: boolean;
  crawlEntireDomain?: boolean;
  ignoreSitemap?: boolean;
}

/** The v2 fields those become. */
export interface CrawlOptionsV2Renamed {
  maxDiscoveryDepth?: number;
  crawlEntireDomain?: boolean;
  sitemap?: SitemapMode;
}

/**
 * Returns the options with v1 names replaced by v2 ones; other fields pass through unchanged.
 * When a request carries both spellings the v2 one wins. Unset options stay unset so v2 defaults
 * still apply.
 */
export function crawlOptionsFromV1<T extends CrawlOptionsV1Renamed>(
  v1: T,
): Omit<T, keyof CrawlOptionsV1Renamed> & CrawlOptionsV2Renamed {
  const {
    maxDepth,
    maxDiscoveryDepth,
    allowBackwardLinks,
    allowBackwardCrawling,
    crawlEntireDomain,
    ignoreSitemap,
    ...rest
  } = v1;
  const v2: Omit<T, keyof CrawlOptionsV1Renamed> & CrawlOptionsV2Renamed = rest;

  const depth = maxDiscoveryDepth ?? maxDepth;
  if (depth !== undefined) v2.maxDiscoveryDepth = depth;

  const entireDomain =
    crawlEntireDomain ??
    (allowBackwardLinks === undefined && allowBackwardCrawling === undefined
      ? undefined
      : allowBackwardLinks === true || allowBackwardCrawling === true);
  if (entireDomain !== undefined) v2.crawlEntireDomain = entireDomain;

  if (ignoreSitemap !== undefined) v2.sitemap = ignoreSitemap ? 'skip' : 'include';
  return v2;
}
