/**
 * Sitemap discovery for a crawl or map: every sitemap the site advertises, nested indexes
 * followed, within a URL budget and a deadline, so a huge or hostile sitemap can delay a crawl
 * but never stall it (and a sitemap is one source among several: link discovery still runs).
 *
 * Candidates, in order: the start URL itself when it ends in `.xml`/`.xml.gz`, the robots.txt
 * `Sitemap:` lines, then `<origin>/sitemap.xml`. Each sitemap is read at most once; children of an
 * index are one level deeper than the index, and levels beyond `maxDepth` are not read.
 * `truncated` is true whenever something was left unread: the URL budget ran out, the deadline
 * passed, a sitemap hit the size cap or was corrupt, or an index nested too deep.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { TrawlError } from '../../lib/errors.js';
import { resolveLink } from '../../lib/url/normalize.js';
import { readSitemap } from './sitemap-reader.js';

export interface SitemapFetchResult {
  status: number;
  /** Body as received (after any Content-Encoding), possibly still a gzip file. */
  body: Buffer;
  contentType: string;
}

/** The caller's HTTP client (SSRF-guarded in production); undefined or a throw means no answer. */
export type SitemapFetchBytes = (url: string) => Promise<SitemapFetchResult | undefined>;

export interface DiscoverSitemapOptions {
  /** Stop after this many distinct page URLs. */
  maxUrls: number;
  /** Deepest sitemap-index nesting followed. @default 10 */
  maxDepth?: number;
  /** Decompressed bytes read per sitemap (sitemaps.org allows 50 MB). @default 50 MiB */
  maxBytes?: number;
  /** Epoch ms; discovery returns what it has by then. */
  deadline: number;
}

export interface SitemapUrl {
  url: string;
  lastmod?: string;
}

export interface SitemapDiscovery {
  /** Distinct page URLs, in the order the sitemaps list them. */
  urls: SitemapUrl[];
  /** Sitemaps that were read and were sitemaps (not 404s or soft-404 HTML pages). */
  sitemapsRead: string[];
  truncated: boolean;
}

export const SITEMAP_MAX_DEPTH = 10;
export const SITEMAP_MAX_BYTES = 50 * 1024 * 1024;

const SITEMAP_FILE = /\.xml(?:\.gz)?$/i;

function candidates(startUrl: string, robotsSitemaps: readonly string[]): string[] {
  let start: URL;
  try {
    start = new URL(startUrl);
  } catch {
    throw new TrawlError('INVALID_URL', `Invalid start URL: ${startUrl}`);
  }
  const list: (string | undefined)[] = [
    SITEMAP_FILE.test(start.pathname) ? resolveLink(startUrl, startUrl) : undefined,
    ...robotsSitemaps.map((sitemap) => resolveLink(sitemap, startUrl)),
    `${start.origin}/sitemap.xml`,
  ];
  return [...new Set(list.filter((url): url is string => url !== undefined))];
}

/** The fetch, unless the deadline comes first; a late fetch is left to the caller's own timeout. */
async function fetchBefore(
  fetchBytes: SitemapFetchBytes,
  url: string,
  deadline: number,
): Promise<SitemapFetchResult | undefined | 'deadline'> {
  const remaining = deadline - Date.now();
  if (remaining <= 0) return 'deadline';
  const timer = new AbortController();
  try {
    return await Promise.race([
      // A fetch that throws, even synchronously, is a sitemap that is not there.
      Promise.resolve()
        .then(() => fetchBytes(url))
        .catch(() => undefined),
      sleep(remaining, 'deadline' as const, { signal: timer.signal }),
    ]);
  } finally {
    timer.abort();
  }
}

/** Collects page URLs from the site's sitemaps; see the module comment for the rules. */
export async function discoverSitemapUrls(
  startUrl: string,
  robotsSitemaps: readonly string[],
  fetchBytes: SitemapFetchBytes,
  opts: DiscoverSitemapOptions,
): Promise<SitemapDiscovery> {
  const maxDepth = opts.maxDepth ?? SITEMAP_MAX_DEPTH;
  const maxBytes = opts.maxBytes ?? SITEMAP_MAX_BYTES;
  const queue = candidates(startUrl, robotsSitemaps).map((url) => ({ url, depth: 0 }));
  const queued = new Set(queue.map(({ url }) => url));
  const urls: SitemapUrl[] = [];
  const seenPages = new Set<string>();
  const sitemapsRead: string[] = [];
  let truncated = false;
  let budgetSpent = false;

  for (let next = 0; next < queue.length && !budgetSpent; next++) {
    const item = queue[next];
    if (!item) break;
    const response = await fetchBefore(fetchBytes, item.url, opts.deadline);
    if (response === 'deadline') {
      truncated = true;
      break;
    }
    if (!response || response.status < 200 || response.status >= 300) continue;

    const result = await readSitemap(
      response.body,
      { maxBytes, deadline: opts.deadline },
      {
        onPage(loc, lastmod) {
          const url = resolveLink(loc, item.url);
          if (!url || seenPages.has(url)) return true;
          if (urls.length >= opts.maxUrls) {
            budgetSpent = true;
            return false;
          }
          seenPages.add(url);
          urls.push(lastmod ? { url, lastmod } : { url });
          return true;
        },
        onSitemap(loc) {
          const url = resolveLink(loc, item.url);
          if (!url || queued.has(url)) return;
          if (item.depth + 1 > maxDepth) {
            truncated = true;
            return;
          }
          queued.add(url);
          queue.push({ url, depth: item.depth + 1 });
        },
      },
    );
    if (result.isSitemap) sitemapsRead.push(item.url);
    if (result.end !== 'complete') truncated = true;
    if (result.end === 'deadline') break;
  }

  return { urls, sitemapsRead, truncated };
}
