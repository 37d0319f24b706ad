/**
 * A frontier slice: one lane of a crawl or batch scrape, working the job's Postgres frontier for a
 * few seconds. It claims a page, runs it through the same pipeline and crawl policy as crawlPage
 * (activities/crawl-page.ts), and claims the next as soon as that one is settled, so a job with
 * concurrency N keeps N pages in flight with N slices, and Temporal sees one activity per lane
 * every few seconds instead of one per page or per batch, and no batch waits on its slowest page.
 * The lane holds one of the team's concurrency slots while it has pages to run, and frees it when
 * it falls idle or ends.
 *
 * Durability is per page, as before: each page settles its Document, frontier row and charge in
 * its own transaction; every page claimed is marked with the slice's id, so its
 * totals are read back from the rows (exact across attempts), and a retry after a worker died
 * hands the page that attempt had in flight back to the workflow instead of running it here.
 */
import { Context } from '@temporalio/activity';
import { claimBestFirst, focusHasWork } from '../db/repositories/crawl-focus.js';
import { claimQueued, claimTotals, openPageCount, pagesClaimedBy, type ClaimTotals } from '../db/repositories/crawl-pages.js';
import type { FrontierPage } from '../lib/crawl/settings.js';
import { CRAWL_SLOT_WAIT_MS, crawlPolicy, crawlTask, finalFailure, type CrawlPageInput } from './crawl-page.js';
import type { ActivityDeps } from './deps.js';
import { recordFailedPage } from './frontier-bookkeeping.js';
import { ENRICH_STEPS, type EnrichStep } from './page/enrich/steps.js';
import { NO_SLOT, runPage } from './page/pipeline.js';
import { withTeamSlot } from './page/team-slot.js';
import { HEARTBEAT_INTERVAL_MS } from './page/signal.js';
import { requireCredits, type TeamBudget } from './page/team-budget.js';
import type { RobotsLookup } from './site/site-rules.js';

export interface CrawlSliceInput extends Omit<CrawlPageInput, 'page'> {
  /** Marks every page the slice claims; stable across its retries, unique within the job. */
  sliceId: string;
  /** Claim at most this many pages. */
  maxPages: number;
  /** Claim no page after this long. */
  sliceMs: number;
  /** Return the Document ids of the pages it completed (the job sends page webhooks). */
  withDocumentIds: boolean;
}

/**
 * Why the slice stopped: its time or page budget ran out; the job has nothing queued or in
 * flight; the team's credits ran out (the page refused stays claimed, for the job to retire); or
 * it hands a page back.
 */
export type SliceEnd = 'time' | 'budget' | 'drained' | 'out-of-credits' | 'handed-back';

export interface CrawlSliceResult extends ClaimTotals {
  ended: SliceEnd;
  /**
   * A page the slice could not settle: none of the team's slots came free, its failure may pass
   * on another attempt, or an attempt whose worker died had it in flight. The workflow runs it
   * alone through crawlPage, with slot waits on durable timers and the page retry policy.
   */
  handBack?: FrontierPage;
}

type SliceStop = Pick<CrawlSliceResult, 'ended' | 'handBack'>;

/** An idle slice (nothing queued, pages in flight elsewhere that may add links) polls this often. */
const IDLE_POLL_FIRST_MS = 20;
const IDLE_POLL_MAX_MS = 500;
/**
 * The team's plan and credits are read again after this long. They only admit a page: each
 * charge re-checks the balance under a row lock.
 */
const BUDGET_TTL_MS = 1_000;

export function createCrawlSliceActivity(
  deps: ActivityDeps,
  robotsFor: RobotsLookup,
  steps: readonly EnrichStep[] = ENRICH_STEPS,
) {
  return async function crawlSlice(input: CrawlSliceInput): Promise<CrawlSliceResult> {
    const ctx = Context.current();
    const heartbeat = setInterval(() => ctx.heartbeat(), HEARTBEAT_INTERVAL_MS);
    try {
      const end = await work(input);
      return { ...(await claimTotals(deps.db, input.jobId, input.sliceId, input.withDocumentIds)), ...end };
    } finally {
      clearInterval(heartbeat);
    }
  };

  async function work(input: CrawlSliceInput): Promise<SliceStop> {
    const ctx = Context.current();
    const { sliceId, jobId, maxPages, sliceMs, withDocumentIds: _, ...common } = input;
    if (ctx.info.attempt > 1) {
      // Not run here: a page that takes its worker down would take every retry of the slice with it.
      const [orphan] = await pagesClaimedBy(deps.db, jobId, sliceId, 'scraping');
      if (orphan) return { ended: 'handed-back', handBack: orphan };
    }
    const stopAt = Date.now() + sliceMs;
    let budget: { read: Promise<TeamBudget>; at: number } | undefined;
    const currentBudget = () => {
      if (!budget || Date.now() - budget.at > BUDGET_TTL_MS) budget = { read: requireCredits(deps.db, input.teamId), at: Date.now() };
      return budget.read;
    };
    let claimed = 0;
    let idleMs = IDLE_POLL_FIRST_MS;
    const ended = (): SliceEnd | undefined => (Date.now() >= stopAt ? 'time' : claimed >= maxPages ? 'budget' : undefined);
    const focused = input.crawler?.focus !== undefined;
    const claimNext = async (): Promise<FrontierPage | undefined> => {
      const [page] = await (focused ? claimBestFirst : claimQueued)(deps.db, jobId, sliceId, 1);
      if (page) claimed += 1;
      return page;
    };
    const hasWork = async () => (focused ? focusHasWork(deps.db, jobId) : (await openPageCount(deps.db, jobId)) > 0);
    /** What a page's failure means for the slice: it ends it, or the page is recorded as failed. */
    const failed = async (page: FrontierPage, err: unknown): Promise<SliceStop | undefined> => {
      if (ctx.cancellationSignal.aborted) throw err;
      const final = finalFailure(err);
      if (!final) return { ended: 'handed-back', handBack: page };
      if (final.code === 'INSUFFICIENT_CREDITS') return { ended: 'out-of-credits' };
      await recordFailedPage(deps.db, { jobId, teamId: input.teamId, page, code: final.code, error: final.message });
      return undefined;
    };
    for (;;) {
      const end = ended();
      if (end) return { ended: end };
      const first = await claimNext();
      if (!first) {
        if (!(await hasWork())) return { ended: 'drained' };
        // Pages in flight in other lanes may still add links: waiting here keeps this lane ready
        // for them, where returning would leave it idle until the workflow starts another slice.
        await ctx.sleep(Math.min(idleMs, Math.max(1, stopAt - Date.now())));
        idleMs = Math.min(idleMs * 2, IDLE_POLL_MAX_MS);
        continue;
      }
      idleMs = IDLE_POLL_FIRST_MS;
      let limit: number;
      try {
        limit = (await currentBudget()).plan.concurrency;
      } catch (err) {
        const stop = await failed(first, err);
        if (stop) return stop;
        continue;
      }
      // One of the team's slots for the lane's run of pages, freed when the lane falls idle or the
      // slice ends: taken and freed once a run instead of once a page.
      const run = await withTeamSlot(deps.db, { teamId: input.teamId, limit, waitMs: CRAWL_SLOT_WAIT_MS }, async (slot) => {
        slot.reused = true;
        for (let next: FrontierPage | undefined = first; next; next = await claimNext()) {
          const page = next;
          const one: CrawlPageInput = { ...common, jobId, page };
          const stop = await runPage(deps, steps, crawlTask(one), { ...crawlPolicy(one, robotsFor), budget: currentBudget(), slot }).then(
            () => undefined,
            (err: unknown) => failed(page, err),
          );
          if (stop) return stop;
          const end = ended();
          if (end) return { ended: end };
        }
        return undefined;
      });
      if (run === NO_SLOT) return { ended: 'handed-back', handBack: first };
      if (run) return run;
    }
  }
}
