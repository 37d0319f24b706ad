/**
 * robots.txt and sitemap access for crawl activities. robots.txt is fetched once per origin per
 * crawl, stored in Postgres so every worker applies the same rules, and cached in this process.
 */
import { findCrawlRobots, saveCrawlRobots } from '../../db/repositories/crawl-pages.js';
import { loadRobots, type Robots } from '../../scraper/discovery/robots.js';
import type { SitemapFetchBytes } from '../../scraper/discovery/sitemaps.js';
import { fetchWithHttp } from '../../scraper/engines/http.js';
import { DIRECT_ROUTES, withProxyRoute, type ProxyRoutes } from '../../scraper/net/proxy-routes.js';
import type { NetworkPolicy } from '../../scraper/types.js';
import type { SiteFetchRoute } from '../../lib/crawl/settings.js';
import { TrawlError } from '../../lib/errors.js';
import type { ActivityDeps } from '../deps.js';

/** The product token sites name in robots.txt to address Trawl (FirecrawlAgent is honoured too). */
export const ROBOTS_PRODUCT_TOKEN = 'TrawlBot';

const FETCH_TIMEOUT_MS = 15_000;
const ROBOTS_CACHE_SIZE = 500;
/** What a site without robots.txt answers: every URL allowed. */
const NO_ROBOTS_TXT = { status: 404, body: '' };
const BASIC: SiteFetchRoute = { proxy: 'basic' };

/**
 * Fetches for a site's robots.txt and sitemaps, through the same proxy pool and country as the
 * job's pages: a crawl through `enhanced` or a country must not reveal the server's own address
 * on its first requests.
 */
export function plainFetcher(network: NetworkPolicy, routes: ProxyRoutes = DIRECT_ROUTES, via: SiteFetchRoute = BASIC) {
  const fetchOnce = async (url: string) => {
    const { result } = await withProxyRoute(routes, via.proxy, via.country, (route) =>
      fetchWithHttp({
        url,
        network: { ...network, proxy: route.proxy },
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
        deadline: Date.now() + FETCH_TIMEOUT_MS,
      }),
    );
    return result;
  };
  const fetchBytes: SitemapFetchBytes = async (url) => {
    const page = await fetchOnce(url);
    return { status: page.statusCode, body: page.body ?? Buffer.alloc(0), contentType: page.contentType };
  };
  const fetchText = async (url: string) => {
    const page = await fetchOnce(url);
    return { status: page.statusCode, body: (page.body ?? Buffer.alloc(0)).toString('utf8') };
  };
  return { fetchBytes, fetchText };
}

/** robots.txt of `url`'s origin, for one job, fetched the way the job's pages are (`via`). */
export type RobotsLookup = (jobId: string, url: string, via?: SiteFetchRoute) => Promise<Robots>;

export function createRobotsLookup(deps: ActivityDeps): RobotsLookup {
  const cache = new Map<string, Promise<Robots>>();
  const network = { allowPrivateNetwork: deps.allowPrivateNetwork, skipTlsVerification: true };
  return (jobId, url, via) => {
    const { fetchText } = plainFetcher(network, deps.proxies, via);
    const origin = new URL(url).origin;
    const agent = via?.robotsUserAgent ?? ROBOTS_PRODUCT_TOKEN;
    // The file is the origin's; which of its groups applies is the agent's.
    const key = `${jobId} ${origin} ${agent}`;
    let robots = cache.get(key);
    if (!robots) {
      robots = loadRobots(
        origin,
        async (robotsUrl) => {
          const stored = await findCrawlRobots(deps.db, jobId, origin);
          if (stored) return stored.status === 0 ? undefined : stored;
          let fetched: { status: number; body: string } | undefined;
          try {
            fetched = await fetchText(robotsUrl);
          } catch (err) {
            // The address policy refuses this origin: robots.txt has no say, its pages fail with
            // SSRF_BLOCKED when fetched and /errors lists them with that reason. Reading the refusal
            // as "robots.txt unreachable, disallow all" would file them as robots blocks.
            if (err instanceof TrawlError && err.code === 'SSRF_BLOCKED') return NO_ROBOTS_TXT;
          }
          await saveCrawlRobots(deps.db, {
            jobId,
            origin,
            status: fetched?.status ?? 0,
            body: fetched?.body ?? '',
          });
          return fetched;
        },
        agent,
      );
      robots.catch(() => cache.delete(key));
      cache.set(key, robots);
      if (cache.size > ROBOTS_CACHE_SIZE) cache.delete(cache.keys().next().value!);
    }
    return robots;
  };
}
