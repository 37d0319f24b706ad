/**
 * The loop that crawls and batch scrapes share: claim queued pages from the Postgres frontier,
 * scrape them as activities with bounded concurrency, record every outcome, and finish once
 * nothing is queued or in flight. The workflow holds only counters and a small buffer; pages,
 * documents and the seen-set live in Postgres, so a run can continue-as-new at any page boundary.
 */
import {
  allHandlersFinished,
  CancellationScope,
  condition,
  isCancellation,
  setCurrentDetails,
  setHandler,
  sleep,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { ScrapeOptions } from '../contracts/scrape-options.js';
import type { WebhookConfig, WebhookEventKind } from '../contracts/webhook.js';
import { CREDITS_EXHAUSTED_WARNING } from '../lib/credits.js';
import { fromFailure } from '../lib/errors.js';
import { webhookWants, type WebhookJobKind } from '../lib/webhook-events.js';
import { bookkeepingActivities, crawlKickoffActivities, pageActivities, webhookActivities } from './activities.js';
import { getProgressQuery, pagesAddedSignal, type PageJobProgress } from './messages.js';
import type { CrawlerSettings, FrontierPage } from '../lib/crawl/settings.js';

// MARK: - Types

export interface PageJobState {
  started: boolean;
  completed: number;
  failed: number;
  creditsUsed: number;
  /** Claims made so far, across runs; part of each claim's idempotency id. */
  claimSeq: number;
  runs: number;
  /** Pages claimed but not yet started when the previous run continued-as-new. */
  buffer: FrontierPage[];
  crawlDelaySecs?: number;
}

export interface PageJobInput {
  jobId: string;
  teamId: string;
  kind: WebhookJobKind;
  scrapeOptions: ScrapeOptions;
  webhook?: WebhookConfig;
  /** Present for crawls: how to seed the frontier and filter discovered links. */
  crawler?: CrawlerSettings;
  /** See ScrapePageInput.mediaBaseUrl. */
  mediaBaseUrl?: string;
  /** Pages of this job in flight at once. @default 10 */
  maxConcurrency?: number;
  /** Seconds between page starts; robots.txt Crawl-delay applies when unset. */
  delaySecs?: number;
  /** Continue-as-new after this many pages in one run (Temporal's own suggestion also triggers it). @default 500 */
  pagesPerRun?: number;
  state?: PageJobState;
}

export interface PageJobResult {
  status: 'completed';
  completed: number;
  failed: number;
  creditsUsed: number;
}

const DEFAULT_CONCURRENCY = 10;
const DEFAULT_PAGES_PER_RUN = 500;
const MAX_CLAIM = 100;
/** Waits between tries of a page that found no free slot of the team's concurrency limit. */
const SLOT_RETRY_FIRST_MS = 500;
const SLOT_RETRY_MAX_MS = 5_000;

// MARK: - Loop

export async function runPageJob(
  input: PageJobInput,
  continueAsNewWith: (next: PageJobInput) => Promise<never>,
): Promise<PageJobResult> {
  const state: PageJobState = input.state ?? {
    started: false,
    completed: 0,
    failed: 0,
    creditsUsed: 0,
    claimSeq: 0,
    runs: 0,
    buffer: [],
  };
  state.runs += 1;
  let phase: PageJobProgress['phase'] = state.started ? 'scraping' : 'starting';
  let inFlight = 0;
  let mayHaveWork = true;
  let pagesThisRun = 0;
  let creditsExhausted = false;
  let continuing = false;
  let pagesAddedAfterFinish = false;
  const deliveries = new Set<Promise<void>>();

  /**
   * Sends one webhook event without holding up the caller. A delivery that fails for good is
   * logged by Temporal and dropped: a broken receiver never fails or slows the job.
   */
  const notify = (event: WebhookEventKind, extra: { documentId?: string; error?: string } = {}) => {
    const webhook = input.webhook;
    if (!webhook || !webhookWants(webhook, event)) return;
    const delivery = webhookActivities
      .deliverWebhook({
        jobId: input.jobId,
        teamId: input.teamId,
        jobKind: input.kind,
        event,
        webhook,
        deliveryId: uuid4(),
        ...extra,
      })
      .then(
        () => undefined,
        () => undefined,
      );
    deliveries.add(delivery);
    void delivery.finally(() => deliveries.delete(delivery));
  };
  /** Terminal events go out only after every page event before them was delivered or given up. */
  const drainDeliveries = async () => {
    while (deliveries.size > 0) await Promise.all([...deliveries]);
  };

  setHandler(getProgressQuery, () => ({
    phase,
    completed: state.completed,
    failed: state.failed,
    inFlight,
    creditsUsed: state.creditsUsed,
    runs: state.runs,
  }));
  setHandler(pagesAddedSignal, () => {
    // Pages appended after this run completed the job: the API reopened it, a new run scrapes them.
    if (phase === 'done') pagesAddedAfterFinish = true;
    mayHaveWork = true;
  });

  const { finishJob, claimPages, recordPageFailure } = bookkeepingActivities;
  const { crawlPage } = pageActivities(input.scrapeOptions.timeout);

  const runPage = async (page: FrontierPage): Promise<void> => {
    try {
      const pageInput = {
        jobId: input.jobId,
        teamId: input.teamId,
        page,
        scrapeOptions: input.scrapeOptions,
        crawler: input.crawler,
        mediaBaseUrl: input.mediaBaseUrl,
      };
      let result = await crawlPage(pageInput);
      // The team's concurrency slots are all taken (by this or its other jobs): wait on a timer,
      // keeping this page's place in `inFlight`, rather than in a worker's activity slot.
      for (let waitMs = SLOT_RETRY_FIRST_MS; result.deferred; waitMs = Math.min(waitMs * 2, SLOT_RETRY_MAX_MS)) {
        await sleep(waitMs);
        result = await crawlPage(pageInput);
      }
      state.completed += 1;
      state.creditsUsed += result.creditsUsed;
      if (result.enqueued > 0) mayHaveWork = true;
      notify('page', { documentId: result.documentId });
    } catch (err) {
      // A cancelled job stops its pages; the main loop records the cancel.
      if (isCancellation(err)) return;
      const known = fromFailure(err);
      // The page was refused before its fetch, or its charge was: it is not a failed page. The
      // loop stops claiming, and the job ends completed with what it has, and a warning.
      if (known?.code === 'INSUFFICIENT_CREDITS') {
        creditsExhausted = true;
        return;
      }
      state.failed += 1;
      await recordPageFailure({
        jobId: input.jobId,
        teamId: input.teamId,
        page,
        code: known?.code ?? 'SCRAPE_ALL_ENGINES_FAILED',
        error: known?.message ?? (err instanceof Error ? errorChain(err) : String(err)),
      });
    } finally {
      inFlight -= 1;
      showProgress();
    }
  };

  const showProgress = () =>
    setCurrentDetails(
      `**${phase}** · ${state.completed} completed · ${state.failed} failed · ${inFlight} in flight · run ${state.runs}`,
    );

  try {
    if (!state.started) {
      notify('started');
      if (input.crawler) {
        const seeded = await crawlKickoffActivities.startCrawl({ jobId: input.jobId, crawler: input.crawler });
        state.crawlDelaySecs = seeded.crawlDelaySecs;
      }
      state.started = true;
      phase = 'scraping';
    }
    const delayMs = Math.round((input.delaySecs ?? state.crawlDelaySecs ?? 0) * 1000);
    // A delay means "one request at a time" unless the caller also asked for concurrency.
    const concurrency = delayMs > 0 && input.maxConcurrency === undefined ? 1 : (input.maxConcurrency ?? DEFAULT_CONCURRENCY);
    const claimSize = Math.min(MAX_CLAIM, concurrency * 2);
    const pagesPerRun = input.pagesPerRun ?? DEFAULT_PAGES_PER_RUN;

    /** Runs pages until nothing is queued or in flight, or until this run should continue-as-new. */
    const scrapeUntilIdle = async (): Promise<void> => {
      for (;;) {
        if (creditsExhausted) {
          await condition(() => inFlight === 0);
          return;
        }
        if (pagesThisRun >= pagesPerRun || workflowInfo().continueAsNewSuggested) {
          phase = 'finishing';
          await condition(() => inFlight === 0);
          await drainDeliveries();
          await condition(allHandlersFinished);
          continuing = true;
          return;
        }
        await condition(
          () => creditsExhausted || (inFlight < concurrency && (state.buffer.length > 0 || mayHaveWork || inFlight === 0)),
        );
        if (creditsExhausted) continue;
        if (state.buffer.length === 0) {
          if (mayHaveWork) {
            mayHaveWork = false;
            const claimId = `${workflowInfo().workflowId}/${state.claimSeq}`;
            state.claimSeq += 1;
            state.buffer = await claimPages({ jobId: input.jobId, claimId, max: claimSize });
            if (state.buffer.length === claimSize) mayHaveWork = true;
            continue;
          }
          if (inFlight === 0) return;
          continue;
        }
        const page = state.buffer.shift()!;
        if (delayMs > 0 && pagesThisRun > 0) await sleep(delayMs);
        inFlight += 1;
        pagesThisRun += 1;
        // Not awaited here: inFlight tracks it, and runPage never rejects.
        void runPage(page);
        showProgress();
      }
    };

    for (;;) {
      await scrapeUntilIdle();
      if (continuing) break;
      phase = 'done';
      const completed = await finishJob({
        jobId: input.jobId,
        status: 'completed',
        // Claimed and queued pages leave the totals: they will not be scraped.
        ...(creditsExhausted ? { warning: CREDITS_EXHAUSTED_WARNING, retireOpenPages: true } : {}),
      });
      if (completed) break;
      // Pages were appended while this run wound down: back to work on them.
      phase = 'scraping';
      pagesAddedAfterFinish = false;
      mayHaveWork = true;
    }

    if (!continuing) {
      showProgress();
      await drainDeliveries();
      notify('completed');
      await drainDeliveries();
    }
  } catch (err) {
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(() => finishJob({ jobId: input.jobId, status: 'cancelled' }));
      throw err;
    }
    const error = err instanceof Error ? err.message : String(err);
    await CancellationScope.nonCancellable(async () => {
      await finishJob({ jobId: input.jobId, status: 'failed', error });
      await drainDeliveries();
      notify('failed', { error });
      await drainDeliveries();
    });
    throw err;
  }
  // Outside the try: continue-as-new works by throwing, and that is not a job failure.
  if (continuing || pagesAddedAfterFinish) return continueAsNewWith({ ...input, state });
  return { status: 'completed', completed: state.completed, failed: state.failed, creditsUsed: state.creditsUsed };
}

function errorChain(err: Error): string {
  const parts: string[] = [];
  let current: unknown = err;
  for (let i = 0; current instanceof Error && i < 4; i++) {
    parts.push(current.message);
    current = current.cause;
  }
  return parts.filter(Boolean).join(': ');
}
