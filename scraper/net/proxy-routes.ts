/**
 * Which upstream proxy one scrape attempt goes through. Firecrawl's `proxy` option names a tier
 * (basic, enhanced, or auto: basic first, enhanced after a refusal); the operator configures a
 * pool per tier and, optionally, per country for `location.country`.
 *
 * Resolution for a tier and country: the country's pool of that tier, else the global pool of
 * that tier; an enhanced request with no enhanced pool anywhere uses the basic resolution and is
 * reported as basic, since that is what served it. No pool at all means a direct connection,
 * reported as basic as Firecrawl does. Each pool rotates round-robin, one proxy per attempt, so
 * a page and its subresources (and its redirect hops) leave through the same address.
 */
import type { ProxyConfig, ProxyPoolUrls, ProxyTier } from '../../lib/proxy-config.js';

export type { ProxyTier } from '../../lib/proxy-config.js';

/** The `proxy` scrape option; `stealth` is Firecrawl's older name for enhanced. */
export type ProxyMode = 'basic' | 'enhanced' | 'auto' | 'stealth';

export interface ProxyRoute {
  /** What `metadata.proxyUsed` reports. */
  tier: ProxyTier;
  /** Upstream proxy URL, or undefined for a direct connection. */
  proxy?: string;
}

export interface ProxyRoutes {
  /** The route for the next attempt at `tier`, advancing that pool's rotation. */
  next(tier: ProxyTier, country?: string): ProxyRoute;
  /** Whether an enhanced pool serves this country, so retrying there can change the outcome. */
  hasEnhanced(country?: string): boolean;
}

/** Statuses after which `auto` retries through the enhanced pool: the site refused this address. */
const REFUSED_STATUSES: ReadonlySet<number> = new Set([401, 403, 429]);

export function createProxyRoutes(config: ProxyConfig): ProxyRoutes {
  const cursors = new Map<readonly string[], number>();
  const take = (pool: readonly string[]): string => {
    const at = cursors.get(pool) ?? 0;
    cursors.set(pool, (at + 1) % pool.length);
    return pool[at]!;
  };
  const poolsFor = (country: string | undefined): ProxyPoolUrls[] => {
    const local = country === undefined ? undefined : config.countries[country.toUpperCase()];
    return local ? [local, config.global] : [config.global];
  };
  const poolOf = (tier: ProxyTier, country: string | undefined): readonly string[] | undefined =>
    poolsFor(country)
      .map((pools) => pools[tier])
      .find((pool) => pool.length > 0);

  return {
    next(tier, country) {
      const enhanced = tier === 'enhanced' ? poolOf('enhanced', country) : undefined;
      if (enhanced) return { tier: 'enhanced', proxy: take(enhanced) };
      const basic = poolOf('basic', country);
      return basic ? { tier: 'basic', proxy: take(basic) } : { tier: 'basic' };
    },
    hasEnhanced: (country) => poolOf('enhanced', country) !== undefined,
  };
}

/** Routes with no pools: every attempt connects directly. */
export const DIRECT_ROUTES: ProxyRoutes = createProxyRoutes({ global: { basic: [], enhanced: [] }, countries: {} });

/**
 * Runs `attempt` through the route `mode` asks for. `auto` tries basic, and tries once more
 * through the enhanced pool when basic was refused (401, 403, 429) and an enhanced pool exists.
 * Firecrawl bills no surcharge for either, so neither does this.
 */
export async function withProxyRoute<T extends { statusCode: number }>(
  routes: ProxyRoutes,
  mode: ProxyMode,
  country: string | undefined,
  attempt: (route: ProxyRoute) => Promise<T>,
): Promise<{ result: T; proxyUsed: ProxyTier }> {
  const tier: ProxyTier = mode === 'enhanced' || mode === 'stealth' ? 'enhanced' : 'basic';
  const first = routes.next(tier, country);
  const result = await attempt(first);
  if (mode !== 'auto' || !REFUSED_STATUSES.has(result.statusCode) || !routes.hasEnhanced(country)) {
    return { result, proxyUsed: first.tier };
  }
  const retry = routes.next('enhanced', country);
  return { result: await attempt(retry), proxyUsed: retry.tier };
}
