/**
 * The crawl policy over the page pipeline (activities/page/pipeline.ts): one page of a crawl or
 * batch scrape. It adds the links the page discovers to the frontier, then stores the Document,
 * the page's final status, its cache copy, its charge and the release of its slot together.
 * Safe to run twice for the same page. The job's "completed" belongs to its workflow
 * (finishJob), which alone knows when the frontier is drained.
 */
import type { ChangeDetection } from '../contracts/change-detection.js';
import type { ScrapeOptions } from '../contracts/scrape-options.js';
import { settlePage } from '../db/repositories/crawl-pages.js';
import type { FocusEvidence } from '../db/repositories/crawl-focus.js';
import { pageRelevance } from '../lib/crawl/relevance.js';
import type { CrawlerSettings, FocusSettings, FrontierPage } from '../lib/crawl/settings.js';
import type { ScrapeOutcome } from '../scraper/scrape.js';
import { PageError, TrawlError } from '../lib/errors.js';
import { atActivityBoundary } from './boundary.js';
import type { ActivityDeps } from './deps.js';
import { completedDocumentRow } from './page/document-row.js';
import { ENRICH_STEPS, type EnrichStep } from './page/enrich/steps.js';
import { NO_SLOT, runPage, type PagePolicy } from './page/pipeline.js';
import { pageCharge, withCreditCode } from './page/team-budget.js';
import { discover } from './site/discover.js';
import { stopIfDone } from './site/focus-stop.js';
import { sparingBlockedHosts } from './threat/gate.js';
import type { RobotsLookup } from './site/site-rules.js';

export interface CrawlPageInput {
  jobId: string;
  teamId: string;
  page: FrontierPage;
  scrapeOptions: ScrapeOptions;
  /** Absent for batch scrapes: their pages discover nothing. */
  crawler?: CrawlerSettings;
  /** See ScrapePageInput.mediaBaseUrl. */
  mediaBaseUrl?: string;
  /** A monitor's page (contracts/change-detection.ts). */
  changeDetection?: ChangeDetection;
}

export type CrawlPageResult = CrawlPageDone | CrawlPageDeferred;

export interface CrawlPageDone {
  deferred?: false;
  documentId: string;
  creditsUsed: number;
  /** Pages this page added to the frontier. */
  enqueued: number;
}

/** None of the team's concurrency slots came free in time: the workflow runs the page again later. */
export interface CrawlPageDeferred {
  deferred: true;
}

/** A page waits this long for one of the team's slots before its workflow retries it later. */
export const CRAWL_SLOT_WAIT_MS = 3_000;

export function createCrawlPageActivity(
  deps: ActivityDeps,
  robotsFor: RobotsLookup,
  steps: readonly EnrichStep[] = ENRICH_STEPS,
) {
  return async function crawlPage(input: CrawlPageInput): Promise<CrawlPageResult> {
    return atActivityBoundary(async () => {
      const done = await runPage(deps, steps, crawlTask(input), crawlPolicy(input, robotsFor));
      // The workflow waits on a timer and runs the page again; see activities/page/team-slot.ts.
      return done === NO_SLOT ? { deferred: true } : done;
    }, withCreditCode);
  };
}

/** A crawl page as the pipeline's task. */
export function crawlTask(input: CrawlPageInput) {
  return { ...input, url: input.page.url, sourceUrl: input.page.url, options: input.scrapeOptions, relevance: input.crawler?.focus !== undefined };
}

/** The page's failure when no attempt will fix it (a refused charge included), else undefined. */
export function finalFailure(err: unknown): TrawlError | undefined {
  const known = withCreditCode(err);
  return known instanceof TrawlError && !known.retryable ? known : undefined;
}

/**
 * A query-directed crawl's page, scored against the query on arrival: its trace goes into its
 * metadata (`crawl`), its evidence into the crawl's progress.
 */
function scoreOnArrival(page: FrontierPage, outcome: ScrapeOutcome, focus: FocusSettings): FocusEvidence {
  const markdown = outcome.document.markdown;
  // A page from the cache (lockdown) has no relevance text: its markdown, if delivered, stands in.
  const text = outcome.relevance?.text ?? (typeof markdown === 'string' ? markdown : '');
  const { score, hits } = pageRelevance(text, focus.terms);
  outcome.document.metadata.crawl = { depth: page.depth, parentUrl: page.parentUrl ?? null, score, linkScore: page.score ?? null };
  // A page holding no query term is never relevant, even to a crawl with minScore 0.
  return { relevant: score > 0 && score >= focus.minScore, hits };
}

export function crawlPolicy(input: CrawlPageInput, robotsFor: RobotsLookup): PagePolicy<CrawlPageDone> {
  const { page, crawler } = input;
  return {
    slotWaitMs: CRAWL_SLOT_WAIT_MS,
    deadline: () => Date.now() + input.scrapeOptions.timeout,
    cacheReads: false,
    accept(outcome) {
      // In a crawl a server error is a failed page (retried, then listed in /errors), not content.
      if (outcome.statusCode >= 500 || outcome.statusCode === 429) {
        throw new PageError('SCRAPE_SITE_ERROR', `The page answered HTTP ${outcome.statusCode}`, {
          details: { statusCode: outcome.statusCode },
        });
      }
    },
    async persist({ task, documentId, outcome, creditsUsed, plan, threat, slot, cacheCopy, search }, deps) {
      // Links first: a worker lost before the page settles runs it again, and enqueueing is idempotent.
      // With sitemap "only" the sitemap is the whole crawl: links on pages are not followed.
      const enqueued =
        crawler && crawler.sitemap !== 'only'
          ? await discover(deps, sparingBlockedHosts(robotsFor, threat), task.jobId, crawler, outcome.links, page.depth + 1, {
              parentUrl: page.url,
              texts: outcome.relevance?.links,
            })
          : 0;
      const focus = crawler?.focus && scoreOnArrival(page, outcome, crawler.focus);
      const stored = await settlePage(
        deps.db,
        { jobId: task.jobId, urlKey: page.urlKey, status: 'completed' },
        completedDocumentRow({
          id: documentId,
          jobId: task.jobId,
          teamId: task.teamId,
          url: page.url,
          urlKey: page.urlKey,
          document: outcome.document,
          creditsUsed,
        }),
        {
          charge: pageCharge({ teamId: task.teamId, jobId: task.jobId, documentId, urlKey: page.urlKey, credits: creditsUsed, plan }),
          // A slot its lane runs further pages under stays held.
          lease: slot.reused ? undefined : slot,
          search,
          cacheCopy,
          focus,
        },
      );
      // Its transaction released the slot.
      if (!slot.reused) slot.released = true;
      if (crawler?.focus) await stopIfDone(deps.db, task.jobId, crawler.focus);
      return { documentId: stored.documentId, creditsUsed, enqueued };
    },
  };
}
