/**
 * The site mapper behind POST /v2/map (activities/map.ts), extract's URL globs and the agent's
 * map tool: the URLs of a site, found without scraping them. Sources are the site's sitemaps
 * (robots.txt `Sitemap:` lines, /sitemap.xml, nested indexes) and the links on the start page,
 * fetched once with the plain HTTP engine: a JavaScript-only shell contributes what its HTML has,
 * and the sitemaps do the rest. Rules, in order:
 *  - sources by `sitemap`: include = both, skip = start page only, only = sitemaps only;
 *  - the start URL is listed first (unless sitemap only), with its page's title and description;
 *  - the crawl scope (lib/crawl/scope.ts), with the crawler's options Firecrawl's map takes
 *    (includePaths, excludePaths, regexOnFullURL, maxDiscoveryDepth, allowExternalLinks,
 *    allowSubdomains, crawlEntireDomain): same registrable domain, other subdomains with
 *    includeSubdomains or allowSubdomains, asset files left out; with filterByPath (and without
 *    crawlEntireDomain), at or under the start path on every host (the crawl scope restricts the
 *    start host only: a map of /docs wants no /blog of a subdomain). The start page is depth 0,
 *    its links and the sitemaps' URLs depth 1, as in a crawl;
 *  - fragment dropped, and the query string too with ignoreQueryParameters (from the listed URL,
 *    not just the dedupe key); duplicates by normalizeUrl (similar URLs merged unless
 *    deduplicateSimilarURLs is false), first wins;
 *  - robots.txt of each URL's origin, read for robotsUserAgent, unless ignoreRobotsTxt (its
 *    `Sitemap:` lines are read either way: they say where the URLs are, not whether they may be
 *    fetched);
 *  - `delay`: the map's own requests (start page, sitemaps) are that many seconds apart;
 *  - with `search`: ranked by rankBySearch, then only links matching a query token are kept;
 *  - cut to `limit`.
 */
import type { MapOptions } from '../../contracts/map-options.js';
import { MAX_JOB_PAGES } from '../../contracts/job-limits.js';
import type { SiteFetchRoute } from '../../lib/crawl/settings.js';
import { rankBySearch } from '../../lib/crawl/map-rank.js';
import { createScope } from '../../lib/crawl/scope.js';
import { TrawlError } from '../../lib/errors.js';
import { normalizePathname, normalizeUrl, resolveLink } from '../../lib/url/normalize.js';
import { discoverSitemapUrls, type SitemapDiscovery, type SitemapFetchBytes } from '../../scraper/discovery/sitemaps.js';
import { fetchWithHttp } from '../../scraper/engines/http.js';
import { DIRECT_ROUTES, withProxyRoute } from '../../scraper/net/proxy-routes.js';
import { transformContent } from '../../scraper/html/content.js';
import type { FetchRequest, FetchedPage, TransformOptions } from '../../scraper/types.js';
import type { ActivityDeps } from '../deps.js';
import { plainFetcher, type RobotsLookup } from './site-rules.js';
import { pacer, type Pace } from './pacer.js';

/** What to map; the map activity's input (activities/map.ts) and extract's and the agent's calls. */
export interface SiteMapRequest {
  jobId: string;
  teamId: string;
  /** Absolute start URL. */
  url: string;
  options: MapOptions;
  /** Epoch ms by which the map must be done. */
  deadline: number;
}

export interface MapLink {
  url: string;
  title?: string;
  description?: string;
}

/** A site's map: what the map activity stores in `jobs.result` for the API to answer with. */
export interface SiteMap {
  links: MapLink[];
  warning?: string;
}

const START_PAGE_TIMEOUT_MS = 30_000;
/** Errors of a start page Trawl refused to contact: the map's answer, not a page to skip. */
/**
 * Start-page failures that are the caller's to hear about rather than a reason to fall back on
 * the sitemaps: a target we refuse to contact, and a host that does not resolve (its sitemaps
 * live on the same host), which a scrape answers as 400 SCRAPE_DNS_RESOLUTION_ERROR too.
 */
const REFUSED_TARGETS: ReadonlySet<string> = new Set(['SSRF_BLOCKED', 'THREAT_PROTECTION_BLOCKED', 'SCRAPE_DNS_RESOLUTION_ERROR']);
/**
 * Without a `timeout` the caller asked for links, not for a deadline: sitemap reading stops this
 * long before the default budget ends, so a huge sitemap yields a partial map instead of a 408.
 */
const DEFAULT_BUDGET_RESERVE_MS = 10_000;

const LINKS_ONLY: TransformOptions = {
  onlyMainContent: false,
  removeBase64Images: true,
  want: { markdown: false, html: false, rawHtml: false, links: true, images: false },
};

const TRUNCATED_WARNING =
  'Sitemap reading stopped early (time or size limit, or an unreadable sitemap): some URLs may be missing.';

type CheckUrl = NonNullable<FetchRequest['checkUrl']>;

interface StartPage {
  self: MapLink;
  links: string[];
}

/** A link found by the map, at the discovery depth the crawl scope judges it at. */
interface Candidate {
  link: MapLink;
  depth: number;
}

/** Collects a site's links as a map does; extract expands its `/*` URLs with it too. */
export function createSiteMapper(deps: ActivityDeps, robotsFor: RobotsLookup) {
  const network = { allowPrivateNetwork: deps.allowPrivateNetwork, skipTlsVerification: true };
  const routes = deps.proxies ?? DIRECT_ROUTES;
  /** A map has no `proxy` option: its requests take the basic pool of its location's country. */
  const viaOf = (options: MapOptions): SiteFetchRoute => ({ proxy: 'basic', country: options.location?.country, robotsUserAgent: options.robotsUserAgent });

  async function readStartPage(input: SiteMapRequest, signal: AbortSignal, pace: Pace, checkUrl?: CheckUrl): Promise<StartPage> {
    const { url, options } = input;
    let page: FetchedPage;
    try {
      await pace(signal);
      const via = viaOf(options);
      ({ result: page } = await withProxyRoute(routes, via.proxy, via.country, (route) =>
        fetchWithHttp({
          url,
          headers: options.headers,
          location: options.location,
          network: { ...network, proxy: route.proxy },
          signal,
          deadline: Math.min(input.deadline, Date.now() + START_PAGE_TIMEOUT_MS),
          checkUrl,
        }),
      ));
    } catch (err) {
      // A start page that will not load leaves the sitemaps to speak for the site, unless it is
      // one of REFUSED_TARGETS; an abort (deadline or cancellation) ends the whole map.
      if (signal.aborted || (err instanceof TrawlError && REFUSED_TARGETS.has(err.code))) throw err;
      return { self: { url }, links: [] };
    }
    try {
      const { metadata, links = [] } = transformContent(page, LINKS_ONLY);
      return { self: withText(url, metadata.title, metadata.description), links };
    } catch (err) {
      if (err instanceof TrawlError && err.code === 'SCRAPE_UNSUPPORTED_FILE_ERROR') return { self: { url }, links: [] };
      throw err;
    }
  }

  async function readSitemaps(input: SiteMapRequest, robotsSitemaps: string[], signal: AbortSignal, pace: Pace): Promise<SitemapDiscovery> {
    const { url, options } = input;
    // Ranking and narrow scopes need candidates beyond `limit`; otherwise a few times `limit`
    // is plenty and spares reading a huge site's every sitemap.
    const narrowed =
      options.search !== undefined ||
      !options.includeSubdomains ||
      (options.filterByPath && hasPath(url)) ||
      options.includePaths.length > 0 ||
      options.excludePaths.length > 0;
    const { fetchBytes: fetchNow } = plainFetcher(network, routes, viaOf(options));
    const fetchBytes: SitemapFetchBytes = async (sitemapUrl) => {
      await pace(signal);
      return fetchNow(sitemapUrl);
    };
    return discoverSitemapUrls(url, robotsSitemaps, fetchBytes, {
      maxUrls: narrowed ? MAX_JOB_PAGES : Math.min(MAX_JOB_PAGES, options.limit * 4),
      deadline: options.timeout === undefined ? input.deadline - DEFAULT_BUDGET_RESERVE_MS : input.deadline,
    });
  }

  async function inScope(input: SiteMapRequest, candidates: readonly Candidate[]): Promise<MapLink[]> {
    const { jobId, url: startUrl, options } = input;
    const byPath = options.filterByPath && !options.crawlEntireDomain;
    const scope = createScope({
      startUrl,
      includePaths: options.includePaths,
      excludePaths: options.excludePaths,
      regexOnFullURL: options.regexOnFullURL,
      maxDiscoveryDepth: options.maxDiscoveryDepth,
      allowSubdomains: options.includeSubdomains || options.allowSubdomains,
      allowExternalLinks: options.allowExternalLinks,
      crawlEntireDomain: !byPath,
    });
    // The path rule alone: the scope checks the path on the start host only, and a URL moved
    // there to be judged must not be held to path regexes written for its own host.
    const pathScope = createScope({ startUrl, allowExternalLinks: true });
    const startHost = new URL(startUrl).host;
    const kept = new Map<string, MapLink>();
    for (const { link: candidate, depth } of candidates) {
      const url = listedUrl(candidate.url, options.ignoreQueryParameters);
      if (!url || !scope.check(url, depth).ok) continue;
      if (byPath && !pathScope.check(onHost(url, startHost), 0).ok) continue;
      const key = normalizeUrl(url, {
        ignoreQueryParameters: options.ignoreQueryParameters,
        deduplicateSimilarURLs: options.deduplicateSimilarURLs,
      });
      if (kept.has(key)) continue;
      if (!options.ignoreRobotsTxt && !(await robotsFor(jobId, url, viaOf(options))).isAllowed(url)) continue;
      kept.set(key, { ...candidate, url });
    }
    return [...kept.values()];
  }

  /** `checkUrl` is asked about every redirect hop of the start page (threat protection). */
  async function collect(input: SiteMapRequest, signal: AbortSignal, checkUrl?: CheckUrl): Promise<SiteMap> {
    const { url, options } = input;
    const robots = await robotsFor(input.jobId, url, viaOf(options));
    const rules = options.ignoreRobotsTxt ? undefined : robots;
    const warnings: string[] = [];
    if (rules?.source === 'unreachable') warnings.push(rules.reason);
    const pace = pacer((options.delay ?? 0) * 1000);
    const [sitemap, startPage] = await Promise.all([
      options.sitemap === 'skip' ? undefined : readSitemaps(input, robots.sitemaps(), signal, pace),
      options.sitemap === 'only' || (rules && !rules.isAllowed(url)) ? undefined : readStartPage(input, signal, pace, checkUrl),
    ]);
    const candidates: Candidate[] = [
      ...(startPage ? [{ link: startPage.self, depth: 0 }] : []),
      ...(sitemap?.urls.map((entry) => ({ link: { url: entry.url }, depth: 1 })) ?? []),
      ...(startPage?.links.map((link) => ({ link: { url: link }, depth: 1 })) ?? []),
    ];
    let links = await inScope(input, candidates);
    if (options.search) links = relevantTo(links, options.search);
    links = links.slice(0, options.limit);

    if (sitemap?.truncated && links.length < options.limit) warnings.push(TRUNCATED_WARNING);
    if (links.length < 2 && hasPath(url)) {
      warnings.push(
        `Only ${links.length} result(s) found. For broader coverage, try mapping the base domain: ${new URL(url).origin}`,
      );
    }
    return { links, ...(warnings.length > 0 && { warning: warnings.join(' ') }) };
  }

  return collect;
}

/** Metadata values are typed loosely (any meta tag lands there); only non-empty strings are text. */
function withText(url: string, title: unknown, description: unknown): MapLink {
  return {
    url,
    ...(typeof title === 'string' && title !== '' && { title }),
    ...(typeof description === 'string' && description !== '' && { description }),
  };
}

function onHost(url: string, host: string): string {
  const moved = new URL(url);
  moved.host = host;
  return moved.href;
}

/** The URL as listed: without fragment (a `#section` is the page itself), and without query when ignored. */
function listedUrl(raw: string, ignoreQueryParameters: boolean): string | undefined {
  const url = resolveLink(raw, raw);
  if (!url || !ignoreQueryParameters) return url;
  const parsed = new URL(url);
  parsed.search = '';
  return parsed.href;
}

function hasPath(url: string): boolean {
  return normalizePathname(new URL(url).pathname) !== '/';
}

/**
 * Firecrawl returns only the links relevant to a search. Ours are the ones rankBySearch scores
 * above zero: a query token found in the path, host, title or description, whole or by a shared
 * prefix of three or more characters. When none matches, the whole ranked list is returned, so a
 * search narrows a map but never empties it.
 *
 * rankBySearch puts unscored links after scored ones, in input order; a blank marker placed
 * first (it has no path, host or text, so it scores zero) therefore lands exactly where the
 * matches end.
 */
function relevantTo(links: readonly MapLink[], search: string): MapLink[] {
  const marker: MapLink = { url: '' };
  const ranked = rankBySearch([marker, ...links], search);
  const end = ranked.indexOf(marker);
  return end > 0 ? ranked.slice(0, end) : ranked.filter((link) => link !== marker);
}
