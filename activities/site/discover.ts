/**
 * Links found on a page or in a sitemap, filtered through the crawl's scope and robots.txt, then
 * added to its frontier. Used when a crawl starts and after each of its pages.
 */
import { enqueuePages, recordRobotsBlocked, type FrontierCandidate } from '../../db/repositories/crawl-pages.js';
import { linkScores, type LinkText } from '../../lib/crawl/relevance.js';
import { createScope } from '../../lib/crawl/scope.js';
import type { CrawlerSettings, FocusSettings } from '../../lib/crawl/settings.js';
import { normalizeUrl, urlKey } from '../../lib/url/normalize.js';
import type { ActivityDeps } from '../deps.js';
import type { RobotsLookup } from './site-rules.js';
import { MAX_JOB_PAGES } from '../../contracts/job-limits.js';

/**
 * What this process knows to be in each job's frontier. A frontier never shrinks, so a job seen
 * full here skips link filtering and the frontier's transaction altogether, and a page whose
 * links are all known skips the transaction: on a site whose pages link to the same pages, that
 * is most pages of a crawl, and enqueues of one job take turns on its lock. Only keys an enqueue
 * committed are remembered (each is then in the frontier, or the frontier is full). Bounded,
 * least recently used job forgotten first, and keys past a cap per job are not remembered; what
 * is forgotten, or was enqueued by another worker, only costs a transaction that adds nothing.
 */
interface KnownFrontier {
  full: boolean;
  keys: Set<string>;
}
const knownFrontiers = new Map<string, KnownFrontier>();
const FRONTIERS_KEPT = 200;

function knownFrontier(jobId: string): KnownFrontier {
  let known = knownFrontiers.get(jobId);
  if (known) knownFrontiers.delete(jobId);
  else known = { full: false, keys: new Set() };
  knownFrontiers.set(jobId, known);
  if (knownFrontiers.size > FRONTIERS_KEPT) knownFrontiers.delete(knownFrontiers.keys().next().value!);
  return known;
}

/** Where links come from, for a query-directed crawl's scores and trace. */
export interface LinkSource {
  /** The page they are on; none for the start page and sitemap URLs. */
  parentUrl?: string;
  /** Their texts on that page; a link without one is scored by its URL alone. */
  texts?: readonly LinkText[];
  /** One score for every link instead (the start page's: the user asked for it). */
  score?: number;
}

/**
 * A query-directed crawl's frontier holds links it may never claim (scored below minScore, or
 * beyond its limit): room for this many times its limit, so the best links have others to beat.
 */
const FOCUS_FRONTIER_FACTOR = 10;

/**
 * Resolves to the number of pages added to the frontier. Once the frontier is full, links are
 * neither filtered nor recorded as blocked by robots.txt: none of them would be crawled.
 */
export async function discover(
  deps: ActivityDeps,
  robotsFor: RobotsLookup,
  jobId: string,
  crawler: CrawlerSettings,
  links: readonly string[],
  depth: number,
  source: LinkSource = {},
): Promise<number> {
  const known = knownFrontier(jobId);
  if (known.full) return 0;
  const scope = createScope(crawler);
  const candidates: FrontierCandidate[] = [];
  const blocked: { url: string; key: string }[] = [];
  for (const raw of links) {
    const url = fetchableUrl(raw, crawler);
    if (!url || !scope.check(url, depth).ok) continue;
    const key = frontierKey(url, crawler);
    if (known.keys.has(key)) continue;
    if (!crawler.ignoreRobotsTxt && !(await robotsFor(jobId, url, crawler.via)).isAllowed(url)) {
      blocked.push({ url, key });
      continue;
    }
    candidates.push({ url, urlKey: key, depth });
  }
  await recordRobotsBlocked(deps.db, jobId, blocked.map((b) => b.url));
  const room = crawler.focus ? Math.min(MAX_JOB_PAGES, crawler.limit * FOCUS_FRONTIER_FACTOR) : crawler.limit;
  const { added, full } = await enqueuePages(deps.db, jobId, room, crawler.focus ? scored(candidates, crawler, crawler.focus, source) : candidates);
  known.full ||= full;
  // A blocked URL is recorded once; it is as done as one in the frontier.
  for (const key of [...candidates.map((c) => c.urlKey), ...blocked.map((b) => b.key)]) {
    if (known.keys.size >= MAX_JOB_PAGES) break;
    known.keys.add(key);
  }
  return added;
}

/** Candidates with their link scores, best first: when the frontier has room for some only, the best get it. */
function scored(candidates: readonly FrontierCandidate[], crawler: CrawlerSettings, focus: FocusSettings, source: LinkSource): FrontierCandidate[] {
  // Keyed as candidates are: by the URL the crawler would fetch.
  const texts = new Map(source.texts?.map((t) => [fetchableUrl(t.url, crawler), t]));
  const scores =
    source.score !== undefined
      ? candidates.map(() => source.score!)
      : linkScores(candidates.map((c) => texts.get(c.url) ?? { url: c.url, text: '', around: '' }), focus.terms);
  return candidates
    .map((c, i) => ({ ...c, score: scores[i]!, ...(source.parentUrl !== undefined && { parentUrl: source.parentUrl }) }))
    .sort((a, b) => b.score - a.score);
}

export function frontierKey(url: string, crawler: CrawlerSettings): string {
  return urlKey(
    normalizeUrl(url, {
      ignoreQueryParameters: crawler.ignoreQueryParameters,
      deduplicateSimilarURLs: crawler.deduplicateSimilarURLs,
    }),
  );
}

/** The URL the crawler fetches: fragment gone, and query gone when the crawl ignores queries. */
function fetchableUrl(raw: string, crawler: CrawlerSettings): string | undefined {
  try {
    const url = new URL(raw);
    url.hash = '';
    if (crawler.ignoreQueryParameters) url.search = '';
    return url.href;
  } catch {
    return undefined;
  }
}
