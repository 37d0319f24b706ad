import { Context } from '@temporalio/activity';
import type { ThreatProtectionOverride } from '../contracts/scrape-options.js';
import { createFocus } from '../db/repositories/crawl-focus.js';
import { recordRobotsBlocked } from '../db/repositories/crawl-pages.js';
import { discoverSitemapUrls } from '../scraper/discovery/sitemaps.js';
import type { CrawlerSettings } from '../lib/crawl/settings.js';
import { atActivityBoundary } from './boundary.js';
import type { ActivityDeps } from './deps.js';
import { discover } from './site/discover.js';
import { pageThreatGate, sparingBlockedHosts } from './threat/gate.js';
import { plainFetcher, type RobotsLookup } from './site/site-rules.js';
import { MAX_JOB_PAGES } from '../contracts/job-limits.js';

export interface StartCrawlInput {
  jobId: string;
  teamId: string;
  crawler: CrawlerSettings;
  threatProtection?: ThreatProtectionOverride;
}

export interface StartCrawlResult {
  queued: number;
  /** robots.txt Crawl-delay for the start origin, used when the request set no delay. */
  crawlDelaySecs?: number;
}

/** Sitemaps get this long; a crawl should start scraping rather than wait on a huge index. */
const SITEMAP_BUDGET_MS = 60_000;
const HEARTBEAT_INTERVAL_MS = 2_000;

/**
 * Seeds a crawl's frontier: robots.txt first, then the start page (depth 0) and the sitemap
 * URLs (depth 1), all through the same scope and robots filters as links found on pages.
 */
export function createStartCrawlActivity(deps: ActivityDeps, robotsFor: RobotsLookup) {
  return async function startCrawl(input: StartCrawlInput): Promise<StartCrawlResult> {
    const { jobId, crawler } = input;
    const heartbeat = setInterval(() => Context.current().heartbeat(), HEARTBEAT_INTERVAL_MS);
    return atActivityBoundary(async () => {
      if (crawler.focus) {
        await createFocus(deps.db, jobId, {
          minScore: crawler.focus.minScore,
          limit: crawler.limit,
          evidence: crawler.focus.evidence,
          terms: crawler.focus.terms.length,
        });
      }
      const threat = await pageThreatGate(deps, input.teamId, input.threatProtection);
      const lookup = sparingBlockedHosts(robotsFor, threat);
      // A start page the lists block is queued alone, to be refused and listed in /errors; its
      // site's sitemaps are not read.
      const startBlocked = threat?.blockedByLists(crawler.startUrl) ?? false;
      const robots = crawler.ignoreRobotsTxt ? undefined : await lookup(jobId, crawler.startUrl, crawler.via);
      let queued = 0;
      if (crawler.sitemap !== 'only' || startBlocked) {
        if (robots && !robots.isAllowed(crawler.startUrl)) {
          await recordRobotsBlocked(deps.db, jobId, [crawler.startUrl]);
        } else {
          // The start page is in the crawl whatever the path filters say: the user asked for it.
          // A query-directed crawl claims it first for the same reason.
          queued += await discover(deps, lookup, jobId, { ...crawler, includePaths: [], excludePaths: [] }, [crawler.startUrl], 0, { score: 1 });
        }
      }
      if (crawler.sitemap !== 'skip' && !startBlocked) {
        const network = { allowPrivateNetwork: deps.allowPrivateNetwork, skipTlsVerification: true };
        const { fetchBytes } = plainFetcher(network, deps.proxies, crawler.via);
        const found = await discoverSitemapUrls(crawler.startUrl, robots?.sitemaps() ?? [], fetchBytes, {
          maxUrls: Math.min(MAX_JOB_PAGES, crawler.limit * 4),
          deadline: Date.now() + SITEMAP_BUDGET_MS,
        });
        queued += await discover(deps, lookup, jobId, crawler, found.urls.map((u) => u.url), 1);
      }
      return { queued, crawlDelaySecs: robots?.crawlDelaySecs() };
    }).finally(() => clearInterval(heartbeat));
  };
}
