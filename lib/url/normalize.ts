/**
 * The one URL normalisation of the crawler. The frontier key, the dedupe key (hashed by `urlKey`)
 * and the URLs shown in status views all come from `normalizeUrl`, so two spellings of a page can
 * never be queued, stored or listed twice. The result identifies a page; it is not meant to be
 * fetched or used as a base for relative links (it drops the trailing slash, which changes how
 * relative hrefs resolve), so the crawler keeps the original URL for that.
 *
 * Pure (URL only, no Node builtins): Temporal workflow code imports it.
 */
import { TrawlError } from '../errors.js';
import { fnv1a64 } from './fnv1a64.js';
import { stripWww } from './host.js';

export interface NormalizeOptions {
  /** Drop the whole query string (Firecrawl `ignoreQueryParameters`). */
  ignoreQueryParameters: boolean;
  /**
   * Treat `www.host` and `host`, and `http` and `https`, as one page (Firecrawl
   * `deduplicateSimilarURLs`). The key then always reads `https://` and the bare host.
   */
  deduplicateSimilarURLs: boolean;
}

const INDEX_FILE = /\/index\.(?:html?|php)$/i;
const ESCAPE = /%[0-9a-fA-F]{2}/g;

/** RFC 3986 §2.3: escapes of these mean the same as the character itself. */
function isUnreserved(code: number): boolean {
  return (
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x61 && code <= 0x7a) ||
    (code >= 0x30 && code <= 0x39) ||
    code === 0x2d ||
    code === 0x2e ||
    code === 0x5f ||
    code === 0x7e
  );
}

/** `%7e` and `~` are one URL, and so are `%2f` and `%2F` (RFC 3986 §6.2.2). */
function normalizeEscapes(text: string): string {
  return text.replace(ESCAPE, (escape) => {
    const code = Number.parseInt(escape.slice(1), 16);
    return isUnreserved(code) ? String.fromCharCode(code) : escape.toUpperCase();
  });
}

/**
 * `/docs/`, `/docs/index.html` and `/docs` name the same page on nearly every server. The root
 * stays `/` because an http(s) URL always has a path.
 */
export function normalizePathname(pathname: string): string {
  const collapsed = normalizeEscapes(pathname).replace(INDEX_FILE, '/').replace(/\/+$/, '');
  return collapsed === '' ? '/' : collapsed;
}

function parameterName(pair: string): string {
  const eq = pair.indexOf('=');
  return eq < 0 ? pair : pair.slice(0, eq);
}

/**
 * Sorts the raw `name=value` pairs by name. Pairs are kept as written (not re-serialised through
 * URLSearchParams) because `?a` and `?a=`, or `+` and `%20`, may differ to the server. The sort is
 * stable so repeated names (`a=1&a=2`) keep their order, which can carry meaning.
 */
function sortQuery(search: string): string {
  const pairs = search
    .slice(1)
    .split('&')
    .filter((pair) => pair !== '')
    .map(normalizeEscapes);
  pairs.sort((a, b) => {
    const nameA = parameterName(a);
    const nameB = parameterName(b);
    return nameA < nameB ? -1 : nameA > nameB ? 1 : 0;
  });
  return pairs.join('&');
}

/** Normalises an absolute http(s) URL; throws `INVALID_URL` for anything else. */
export function normalizeUrl(url: string, opts: NormalizeOptions): string {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    throw new TrawlError('INVALID_URL', `Invalid URL: ${url}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TrawlError('INVALID_URL', `Only http and https URLs can be crawled: ${url}`);
  }

  // The URL parser already lower-cases scheme and host, drops default ports and resolves dot segments.
  let protocol = parsed.protocol;
  let hostname = parsed.hostname;
  let port = parsed.port;
  if (opts.deduplicateSimilarURLs) {
    protocol = 'https:';
    hostname = stripWww(hostname);
    if (port === '443') port = '';
  }
  const credentials =
    parsed.username || parsed.password
      ? `${parsed.username}${parsed.password ? `:${parsed.password}` : ''}@`
      : '';
  const query = opts.ignoreQueryParameters ? '' : sortQuery(parsed.search);

  return (
    `${protocol}//${credentials}${hostname}${port ? `:${port}` : ''}` +
    `${normalizePathname(parsed.pathname)}${query ? `?${query}` : ''}`
  );
}

/**
 * A fixed-width key for a normalised URL, for the `(crawl_id, normalized_url_hash)` unique
 * constraint and frontier maps: 16 hex characters. 64 bits keep accidental collisions negligible
 * at crawl sizes (about 1 in 10^7 for a million URLs).
 */
export function urlKey(normalized: string): string {
  return fnv1a64(normalized);
}

/**
 * Turns an href found on a page into an absolute crawlable URL: http(s) only, fragment dropped
 * (a `#section` link is the page itself). Undefined for mailto:, tel:, javascript:, data: and
 * anything that does not parse. Not normalised: the crawler fetches this URL as written.
 */
export function resolveLink(href: string, base: string): string | undefined {
  let resolved: URL;
  try {
    // HTML strips leading and trailing whitespace from URL attributes before resolving.
    resolved = new URL(href.trim(), base);
  } catch {
    return undefined;
  }
  if (resolved.protocol !== 'http:' && resolved.protocol !== 'https:') return undefined;
  resolved.hash = '';
  return resolved.href;
}

/**
 * The key of a page exactly as it was asked for: its query kept and no similar URLs folded into
 * it. Scrapes, batch and extract pages, monitors and search results are keyed so; a crawl's
 * frontier uses the crawl's own options instead.
 */
export function exactPageKey(url: string): string {
  return urlKey(normalizeUrl(url, { ignoreQueryParameters: false, deduplicateSimilarURLs: false }));
}
