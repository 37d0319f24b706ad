/**
 * robots.txt for one origin, fetched once per crawl or map and consulted for every URL of that
 * origin. Parsing and matching are robots-parser's (wildcards, `$`, longest match, Allow on ties,
 * user-agent groups, Crawl-delay, Sitemap); this module decides what a fetch outcome means,
 * following RFC 9309 §2.3.1:
 *  - 2xx: parsed, first 500 KiB only. A body that is HTML, XML or JSON (a catch-all page served
 *    at /robots.txt) is not a robots.txt and counts as empty.
 *  - 4xx: "unavailable", everything allowed. 429 is the exception: it means the server is
 *    overloaded, so it is treated like 5xx, as Google does. A 3xx that reaches us means the
 *    client stopped following redirects, which §2.3.1.2 also lets count as unavailable.
 *  - 5xx or no answer: "unreachable", everything disallowed, and `reason` says so, so the crawl
 *    can report why nothing was fetched instead of silently crawling or silently stopping.
 *
 * Both our product token and `FirecrawlAgent` are honoured: sites that block Firecrawl by name
 * expect every Firecrawl-compatible crawler to be blocked. Their groups are merged as if they
 * were one group (RFC 9309 §2.2.1 on several matching groups), and `*` applies only when neither
 * is named.
 */
import robotsParserModule from 'robots-parser';
import { TrawlError } from '../../lib/errors.js';
import { resolveLink } from '../../lib/url/normalize.js';

// The package's types declare an ES default export, but it is CommonJS whose module.exports is
// the parser function itself, which is what a default import yields at run time.
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;

export type RobotsFetchText = (url: string) => Promise<{ status: number; body: string } | undefined>;

/** How the rules were obtained. Only `unreachable` disallows everything. */
export type RobotsSource = 'parsed' | 'unavailable' | 'unreachable' | 'not-robots-txt';

export interface Robots {
  /** Whether the URL may be fetched. URLs of other origins are not governed by this file: true. */
  isAllowed(url: string): boolean;
  /** Crawl-delay of the group that applies to us, in seconds. */
  crawlDelaySecs(): number | undefined;
  /** Absolute Sitemap: URLs listed in the file. */
  sitemaps(): string[];
  readonly source: RobotsSource;
  /** One line for logs and crawl warnings, e.g. "robots.txt returned 503: disallowing all URLs". */
  readonly reason: string;
}

/** RFC 9309 §2.5: crawlers must parse at least 500 KiB; we parse exactly that much. */
export const ROBOTS_MAX_BYTES = 500 * 1024;

const FIRECRAWL_AGENT = 'FirecrawlAgent';
const FIRECRAWL_AGENT_LINE = /^([ \t]*user-agent[ \t]*:[ \t]*)firecrawlagent\b/gim;

function productToken(userAgent: string): string {
  return (userAgent.split('/')[0] ?? '').trim();
}

/** Cuts at the byte cap, then back to the last full line so no rule is half-read. */
function capBody(body: string): string {
  const bytes = Buffer.from(body, 'utf8');
  if (bytes.length <= ROBOTS_MAX_BYTES) return body;
  const head = bytes.subarray(0, ROBOTS_MAX_BYTES).toString('utf8');
  const lastNewline = Math.max(head.lastIndexOf('\n'), head.lastIndexOf('\r'));
  return lastNewline < 0 ? '' : head.slice(0, lastNewline);
}

function looksLikeOtherFormat(body: string): boolean {
  const first = body.replace(/^\uFEFF/, '').trimStart()[0];
  return first === '<' || first === '{' || first === '[';
}

/**
 * Renames `User-agent: FirecrawlAgent` lines to our token, so robots-parser merges both groups
 * into ours and still falls back to `*` only when neither is present.
 */
function aliasFirecrawlAgent(body: string, token: string): string {
  if (token.toLowerCase() === FIRECRAWL_AGENT.toLowerCase()) return body;
  return body.replace(FIRECRAWL_AGENT_LINE, (_line, prefix: string) => `${prefix}${token}`);
}

function isRobotsTxtItself(url: string): boolean {
  try {
    return new URL(url).pathname === '/robots.txt';
  } catch {
    return false;
  }
}

function sameOrigin(url: string, origin: string): boolean {
  try {
    return new URL(url).origin === origin;
  } catch {
    return false;
  }
}

function allowAll(source: RobotsSource, reason: string): Robots {
  return { isAllowed: () => true, crawlDelaySecs: () => undefined, sitemaps: () => [], source, reason };
}

function disallowAll(origin: string, reason: string): Robots {
  return {
    isAllowed: (url) => !sameOrigin(url, origin),
    crawlDelaySecs: () => undefined,
    sitemaps: () => [],
    source: 'unreachable',
    reason,
  };
}

function parsed(origin: string, robotsUrl: string, body: string, userAgent: string): Robots {
  const token = productToken(userAgent) || FIRECRAWL_AGENT;
  const rules = robotsParser(robotsUrl, aliasFirecrawlAgent(capBody(body), token));
  const sitemaps = [
    ...new Set(
      rules
        .getSitemaps()
        .map((sitemap) => resolveLink(sitemap, robotsUrl))
        .filter((sitemap): sitemap is string => sitemap !== undefined),
    ),
  ];
  return {
    isAllowed(url) {
      if (!sameOrigin(url, origin)) return true;
      // RFC 9309 §2.2.2: the robots.txt URL itself is always allowed.
      if (isRobotsTxtItself(url)) return true;
      return rules.isAllowed(url, token) ?? true;
    },
    crawlDelaySecs() {
      const delay = rules.getCrawlDelay(token);
      return delay !== undefined && Number.isFinite(delay) && delay >= 0 ? delay : undefined;
    },
    sitemaps: () => [...sitemaps],
    source: 'parsed',
    reason: 'robots.txt parsed',
  };
}

/**
 * Fetches and interprets `<origin>/robots.txt`. `fetchText` is the caller's HTTP client (the
 * SSRF-guarded engine in production); undefined or a thrown error means the server could not be
 * reached. `userAgent` is our product token, e.g. `TrawlBot` (a `TrawlBot/1.0` form is accepted).
 */
export async function loadRobots(
  origin: string,
  fetchText: RobotsFetchText,
  userAgent: string,
): Promise<Robots> {
  let base: string;
  try {
    base = new URL(origin).origin;
  } catch {
    throw new TrawlError('INVALID_URL', `Invalid origin for robots.txt: ${origin}`);
  }
  const robotsUrl = `${base}/robots.txt`;
  let response: { status: number; body: string } | undefined;
  try {
    response = await fetchText(robotsUrl);
  } catch {
    response = undefined;
  }

  if (!response) {
    return disallowAll(base, `robots.txt at ${robotsUrl} could not be fetched: disallowing all URLs`);
  }
  const { status, body } = response;
  if (status === 429 || status >= 500) {
    return disallowAll(base, `robots.txt at ${robotsUrl} returned ${status}: disallowing all URLs`);
  }
  if (status < 200 || status >= 300) {
    return allowAll('unavailable', `robots.txt at ${robotsUrl} returned ${status}: allowing all URLs`);
  }
  if (looksLikeOtherFormat(body)) {
    return allowAll(
      'not-robots-txt',
      `robots.txt at ${robotsUrl} is not a robots.txt file: allowing all URLs`,
    );
  }
  return parsed(base, robotsUrl, body, userAgent);
}
