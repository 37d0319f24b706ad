/**
 * Which discovered URLs a crawl follows. One place decides, for links found on pages and for
 * sitemap URLs alike, and says why a URL was left out so the crawl can report it.
 *
 * Rules, checked in this order (the first failing one is the reason):
 *  1. `invalid`      not an absolute http(s) URL.
 *  2. `depth`        deeper than maxDiscoveryDepth. The start page is depth 0, links found on a
 *                    page of depth d have depth d + 1; the caller chooses the depth it gives
 *                    sitemap URLs (Firecrawl treats them as depth 1).
 *  3. `subdomain` / `external`  host checks. The start host and its `www.` twin are always in.
 *                    Other hosts of the same registrable domain (public suffix list) need
 *                    allowSubdomains or allowExternalLinks; other sites need allowExternalLinks.
 *  4. `social`       social-network hosts, unless the crawl started on that site.
 *  5. `file-type`    images, archives, media, fonts, executables, css/js (PDFs pass).
 *  6. `excluded`     an excludePaths regex matches (exclude wins over include).
 *  7. `not-included` includePaths is non-empty and none matches.
 *  8. `outside-path` crawlEntireDomain is off and the URL, on the start host, is not at or below
 *                    the start path. Firecrawl's rule is a plain string prefix of the start
 *                    pathname, so `/docs/intro` would admit `/docs/introduction`; ours is
 *                    segment-wise: `/docs/intro` admits `/docs/intro` and `/docs/intro/…` only.
 *                    When the start URL names a file (`/docs/intro.html`) its directory (`/docs`)
 *                    is the base. Trailing slashes and `index.html` are ignored on both sides.
 *                    Other hosts let in by rule 3 are not path-restricted.
 *
 * Path regexes see `URL.pathname` as written (percent-escapes kept), or the whole URL without its
 * fragment when regexOnFullURL is set. The start URL is not special-cased: the crawl decides
 * whether to scrape it when it does not pass its own filters.
 *
 * Pure: imported by workflow code.
 */
import { TrawlError } from '../errors.js';
import { registrableDomain, stripWww } from '../url/host.js';
import { normalizePathname } from '../url/normalize.js';
import { isSkippedFileType } from './file-types.js';
import { compilePathRegexes } from './path-patterns.js';
import { isSocialHost } from './social-hosts.js';

export interface CrawlScopeOptions {
  /** Where the crawl starts; its host, site and path anchor the other rules. */
  startUrl: string;
  /** Regexes; when non-empty a URL must match one. @default [] */
  includePaths?: readonly string[];
  /** Regexes; a URL matching any is skipped, even if it also matches includePaths. @default [] */
  excludePaths?: readonly string[];
  /** Test path regexes against the full URL instead of the pathname. @default false */
  regexOnFullURL?: boolean;
  /** Follow links anywhere on the start host, not only under the start path. @default false */
  crawlEntireDomain?: boolean;
  /** Follow other hosts of the start URL's registrable domain. @default false */
  allowSubdomains?: boolean;
  /** Follow links to any host. @default false */
  allowExternalLinks?: boolean;
  /** Largest link-hop depth followed; unset means unlimited. */
  maxDiscoveryDepth?: number;
}

export type ScopeRejection =
  | 'depth'
  | 'excluded'
  | 'not-included'
  | 'outside-path'
  | 'external'
  | 'subdomain'
  | 'file-type'
  | 'social'
  | 'invalid';

export type ScopeVerdict = { ok: true } | { ok: false; reason: ScopeRejection };

export interface CrawlScope {
  /** Verdict for a URL at the given discovery depth. */
  check(url: string, depth: number): ScopeVerdict;
}

const IN_SCOPE: ScopeVerdict = { ok: true };

function reject(reason: ScopeRejection): ScopeVerdict {
  return { ok: false, reason };
}

// A last segment like `intro.html` or `page.php` names a file; `v1.2` or `2024.10` does not.
const FILE_SEGMENT = /\.[a-z][a-z0-9]{1,4}$/i;

/** The directory a start URL stands for: itself, or its parent when it names a file. */
function basePath(pathname: string): string {
  const normalized = normalizePathname(pathname);
  const lastSegment = normalized.slice(normalized.lastIndexOf('/') + 1);
  if (!FILE_SEGMENT.test(lastSegment)) return normalized;
  return normalizePathname(normalized.slice(0, normalized.length - lastSegment.length));
}

function isUnderPath(pathname: string, base: string): boolean {
  if (base === '/') return true;
  const normalized = normalizePathname(pathname);
  return normalized === base || normalized.startsWith(`${base}/`);
}

/** Builds the scope; throws BAD_REQUEST for an invalid regex and INVALID_URL for the start URL. */
export function createScope(options: CrawlScopeOptions): CrawlScope {
  let start: URL;
  try {
    start = new URL(options.startUrl);
  } catch {
    throw new TrawlError('INVALID_URL', `Invalid start URL: ${options.startUrl}`);
  }
  const startHost = stripWww(start.hostname);
  const startSite = registrableDomain(start.hostname);
  const startBase = basePath(start.pathname);
  const includes = compilePathRegexes(options.includePaths ?? []);
  const excludes = compilePathRegexes(options.excludePaths ?? []);
  const { maxDiscoveryDepth } = options;

  return {
    check(url: string, depth: number): ScopeVerdict {
      let target: URL;
      try {
        target = new URL(url);
      } catch {
        return reject('invalid');
      }
      if (target.protocol !== 'http:' && target.protocol !== 'https:') return reject('invalid');

      if (maxDiscoveryDepth !== undefined && depth > maxDiscoveryDepth) return reject('depth');

      const sameHost = stripWww(target.hostname) === startHost;
      const site = registrableDomain(target.hostname);
      if (!sameHost && !options.allowExternalLinks) {
        if (site !== startSite) return reject('external');
        if (!options.allowSubdomains) return reject('subdomain');
      }
      if (site !== startSite && isSocialHost(target.hostname)) return reject('social');

      if (isSkippedFileType(target.pathname)) return reject('file-type');

      target.hash = '';
      const subject = options.regexOnFullURL ? target.href : target.pathname;
      if (excludes.some((regex) => regex.test(subject))) return reject('excluded');
      if (includes.length > 0 && !includes.some((regex) => regex.test(subject))) {
        return reject('not-included');
      }

      if (sameHost && !options.crawlEntireDomain && !isUnderPath(target.pathname, startBase)) {
        return reject('outside-path');
      }
      return IN_SCOPE;
    },
  };
}
