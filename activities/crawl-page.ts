import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { enqueuePages, recordRobotsBlocked, settlePage, type FrontierCandidate } from '../db/repositories/crawl-pages.js';
import { createScope } from '../lib/crawl/scope.js';
import { pageCredits } from '../lib/credits.js';
import { PageError, toApplicationFailure } from '../lib/errors.js';
import { normalizeUrl, urlKey } from '../lib/url/normalize.js';
import type { CrawlerSettings, CrawlPageInput, CrawlPageResult } from '../workflows/types.js';
import type { ActivityDeps } from './deps.js';
import { completedDocumentRow } from './page-document.js';
import { scrapeWithHistory } from './page-history.js';
import { mediaPublisher } from './page-media.js';
import { withPageSignal } from './page-signal.js';
import type { RobotsLookup } from './site-rules.js';
import { pageCharge, requireCredits, withCreditCode } from './team-budget.js';
import { NO_SLOT, withTeamSlot } from './team-slot.js';

/** A page waits this long for one of the team's slots before its workflow retries it later. */
const CRAWL_SLOT_WAIT_MS = 3_000;

/**
 * One page of a crawl or batch scrape: scrape it, add the links it discovers to the frontier, and
 * store the Document, the page's final status and its charge together. Safe to run twice for the
 * same page. The fetch holds one of the team's concurrency slots; a page that gets none in time
 * comes back `deferred`, and a team without credits gets INSUFFICIENT_CREDITS before any fetch.
 */
export function createCrawlPageActivity(deps: ActivityDeps, robotsFor: RobotsLookup) {
  return async function crawlPage(input: CrawlPageInput): Promise<CrawlPageResult> {
    const { page } = input;
    try {
      const budget = await requireCredits(deps.db, input.teamId);
      const slotRequest = { teamId: input.teamId, limit: budget.plan.concurrency, waitMs: CRAWL_SLOT_WAIT_MS };
      const done = await withTeamSlot(deps.db, slotRequest, () =>
        withPageSignal(Date.now() + input.scrapeOptions.timeout, async (signal) => {
          const documentId = randomUUID();
          const outcome = await scrapeWithHistory(
            {
              url: page.url,
              sourceUrl: page.url,
              options: input.scrapeOptions,
              scrapeId: documentId,
              deadline: Date.now() + input.scrapeOptions.timeout,
              signal,
              publishMedia: mediaPublisher(deps.db, input),
            },
            deps,
            { ...input, cacheReads: false },
          );
          // In a crawl a server error is a failed page (retried, then listed in /errors), not content.
          if (outcome.statusCode >= 500 || outcome.statusCode === 429) {
            throw new PageError('SCRAPE_SITE_ERROR', `The page answered HTTP ${outcome.statusCode}`, {
              details: { statusCode: outcome.statusCode },
            });
          }
          // With sitemap "only" the sitemap is the whole crawl: links on pages are not followed.
          const enqueued = input.crawler && input.crawler.sitemap !== 'only'
            ? await discover(deps, robotsFor, input.jobId, input.crawler, outcome.links, page.depth + 1)
            : 0;
          const creditsUsed = pageCredits({ succeeded: true, pdf: outcome.pdf });
          outcome.document.metadata.creditsUsed = creditsUsed;
          const stored = await settlePage(
            deps.db,
            { jobId: input.jobId, urlKey: page.urlKey, status: 'completed' },
            completedDocumentRow({
              id: documentId,
              jobId: input.jobId,
              teamId: input.teamId,
              url: page.url,
              urlKey: page.urlKey,
              document: outcome.document,
              creditsUsed,
            }),
            pageCharge({
              teamId: input.teamId,
              jobId: input.jobId,
              documentId,
              urlKey: page.urlKey,
              credits: creditsUsed,
              plan: budget.plan,
            }),
          );
          return { documentId: stored.documentId, creditsUsed, enqueued };
        }),
      );
      // The workflow waits on a timer and runs the page again; see activities/team-slot.ts.
      return done === NO_SLOT ? { deferred: true } : done;
    } catch (err) {
      if (Context.current().cancellationSignal.aborted) throw err;
      throw toApplicationFailure(withCreditCode(err));
    }
  };
}

/** Filters links through the crawl's scope and robots.txt, then adds the survivors to the frontier. */
export async function discover(
  deps: ActivityDeps,
  robotsFor: RobotsLookup,
  jobId: string,
  crawler: CrawlerSettings,
  links: readonly string[],
  depth: number,
): Promise<number> {
  const scope = createScope(crawler);
  const candidates: FrontierCandidate[] = [];
  const blocked: string[] = [];
  for (const raw of links) {
    const url = fetchableUrl(raw, crawler);
    if (!url || !scope.check(url, depth).ok) continue;
    if (!crawler.ignoreRobotsTxt && !(await robotsFor(jobId, url)).isAllowed(url)) {
      blocked.push(url);
      continue;
    }
    candidates.push({ url, urlKey: frontierKey(url, crawler), depth });
  }
  await recordRobotsBlocked(deps.db, jobId, blocked);
  return enqueuePages(deps.db, jobId, crawler.limit, candidates);
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
