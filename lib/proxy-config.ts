/**
 * Upstream proxy pools, read from the environment (see lib/config.ts for the table). A pool is a
 * list of `http(s)://[user:pass@]host:port` URLs; the scraper rotates through it round-robin.
 *
 * Firecrawl's PROXY_SERVER / PROXY_USERNAME / PROXY_PASSWORD are read as the basic pool, so a
 * Firecrawl .env works unchanged. Setting both that and PROXY_BASIC_URLS is refused rather than
 * silently preferring one: an ignored proxy setting leaks the server's own address.
 */
export type ProxyTier = 'basic' | 'enhanced';

export type ProxyPoolUrls = Readonly<Record<ProxyTier, readonly string[]>>;

export interface ProxyConfig {
  /** Pools used when the request names no country, or its country has no pool of that tier. */
  global: ProxyPoolUrls;
  /** Per ISO 3166-1 alpha-2 country (upper case), for `location.country`. */
  countries: Readonly<Record<string, ProxyPoolUrls>>;
}

const COUNTRY_KEY = /^PROXY_COUNTRY_([A-Za-z]{2})_(URLS|ENHANCED_URLS)$/;

/**
 * A proxy URL normalised (no trailing slash; `http://` when no scheme is given). Messages name
 * `where` (the variable and the entry's position, or the header), never the value: it may hold a password.
 */
export function parseProxyUrl(raw: string, where: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`;
  const url = URL.canParse(withScheme) ? new URL(withScheme) : undefined;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
    throw new Error(`${where} is not an http(s)://[user:pass@]host:port proxy URL`);
  }
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '') {
    throw new Error(`${where} has a path, query or fragment; a proxy URL is scheme, credentials, host and port only`);
  }
  return url.href.slice(0, -1);
}

function parseList(name: string, value: string | undefined): string[] {
  if (value === undefined) return [];
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry, i) => parseProxyUrl(entry, `${name} entry ${i + 1}`));
}

/** Firecrawl's single proxy, credentials given apart (they need no URL-encoding there). */
function firecrawlProxy(env: Readonly<Record<string, string>>): string[] {
  const { PROXY_SERVER: server, PROXY_USERNAME: username, PROXY_PASSWORD: password } = env;
  if (server === undefined) {
    if (username !== undefined || password !== undefined) throw new Error('PROXY_USERNAME and PROXY_PASSWORD need PROXY_SERVER');
    return [];
  }
  const url = new URL(parseProxyUrl(server, 'PROXY_SERVER'));
  if (username !== undefined) url.username = username;
  if (password !== undefined) url.password = password;
  return [url.href.slice(0, -1)];
}

/** Reads the pools from `env` (empty values already removed). Throws with the variable's name. */
export function loadProxyConfig(env: Readonly<Record<string, string>>): ProxyConfig {
  const listed = parseList('PROXY_BASIC_URLS', env.PROXY_BASIC_URLS);
  const firecrawl = firecrawlProxy(env);
  if (listed.length > 0 && firecrawl.length > 0) {
    throw new Error('Set PROXY_BASIC_URLS or PROXY_SERVER (Firecrawl compatibility), not both');
  }
  const countries: Record<string, { basic: string[]; enhanced: string[] }> = {};
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith('PROXY_COUNTRY_')) continue;
    const match = COUNTRY_KEY.exec(name);
    if (!match) throw new Error(`${name}: expected PROXY_COUNTRY_<CC>_URLS or PROXY_COUNTRY_<CC>_ENHANCED_URLS`);
    const country = match[1]!.toUpperCase();
    const pools = (countries[country] ??= { basic: [], enhanced: [] });
    pools[match[2] === 'URLS' ? 'basic' : 'enhanced'] = parseList(name, value);
  }
  return {
    global: { basic: [...listed, ...firecrawl], enhanced: parseList('PROXY_ENHANCED_URLS', env.PROXY_ENHANCED_URLS) },
    countries,
  };
}

/** Every distinct upstream proxy URL in the configuration. */
export function allProxyUrls(config: ProxyConfig): string[] {
  const pools = [config.global, ...Object.values(config.countries)];
  return [...new Set(pools.flatMap((pool) => [...pool.basic, ...pool.enhanced]))];
}
