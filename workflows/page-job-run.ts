/**
 * One run of a page job (workflows/page-job.ts): its durable state, the flags of this run, and
 * the loop that claims pages from the Postgres frontier and scrapes them with bounded concurrency.
 * Held in one object, as in Temporal's safe-message-handlers sample, so that the workflow
 * function only wires handlers and decides between finishing and continuing-as-new.
 */
import { condition, isCancellation, setCurrentDetails, sleep, workflowInfo } from '@temporalio/workflow';
import type { CrawlPageInput } from '../activities/crawl-page.js';
import type { ChangeDetection } from '../contracts/change-detection.js';
import type { ScrapeOptions } from '../contracts/scrape-options.js';
import type { WebhookConfig } from '../contracts/webhook.js';
import type { CrawlerSettings, FrontierPage } from '../lib/crawl/settings.js';
import { fromFailure } from '../lib/errors.js';
import type { WebhookJobKind } from '../lib/webhook-events.js';
import { bookkeepingActivities, crawlKickoffActivities, pageActivities, sliceActivities } from './activities.js';
import type { PageJobProgress } from './messages.js';
import { untilSlotGranted } from './slot-wait.js';
import type { WebhookFanout } from './webhook-fanout.js';

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
  /** Epoch ms by which the job must be done, or it fails with JOB_TIMEOUT (extract's `timeout`). */
  deadlineAt?: number;
  /** Continue-as-new after this many pages in one run (Temporal's own suggestion also triggers it). @default 500 */
  pagesPerRun?: number;
  /** A monitor check's job: how its pages compare with the previous check. */
  changeDetection?: ChangeDetection;
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
/**
 * How long a frontier slice (activities/crawl-slice.ts) claims pages before it returns: long
 * enough that Temporal's cost per slice vanishes beside its pages', short enough that page
 * webhooks and the job's counters trail by seconds and that lanes spread again over the workers
 * polling the queue.
 */
const SLICE_MS = 3_000;

/** Why scrapeUntilIdle returned. */
export type IdleReason = 'drained' | 'out-of-credits' | 'continue-as-new';

export class PageJobRun {
  readonly state: PageJobState;
  phase: PageJobProgress['phase'];
  private inFlight = 0;
  /** The frontier may hold pages this run has not claimed (set by discoveries and appends). */
  private mayHaveWork = true;
  private pagesThisRun = 0;
  private creditsExhausted = false;
  /** Pages were appended after this run completed the job: a new run must scrape them. */
  pagesAddedAfterFinish = false;
  private readonly concurrency: number;
  private readonly claimSize: number;
  private readonly pagesPerRun: number;
  private delayMs = 0;
  /** A slice that failed for good (not cancelled): the job fails with it. */
  private failure: unknown;
  /** Pages the slices in flight may still claim. */
  private pagesPromised = 0;

  constructor(
    private readonly input: PageJobInput,
    private readonly webhooks: WebhookFanout,
  ) {
    this.state = input.state ?? { started: false, completed: 0, failed: 0, creditsUsed: 0, claimSeq: 0, runs: 0, buffer: [] };
    this.state.runs += 1;
    this.phase = this.state.started ? 'scraping' : 'starting';
    this.concurrency = input.maxConcurrency ?? DEFAULT_CONCURRENCY;
    this.claimSize = Math.min(MAX_CLAIM, this.concurrency * 2);
    this.pagesPerRun = input.pagesPerRun ?? DEFAULT_PAGES_PER_RUN;
  }

  progress(): PageJobProgress {
    const { completed, failed, creditsUsed, runs } = this.state;
    return { phase: this.phase, completed, failed, inFlight: this.inFlight, creditsUsed, runs };
  }

  /** The pages-added signal: appended URLs are already in the frontier. */
  onPagesAdded(): void {
    if (this.phase === 'done') this.pagesAddedAfterFinish = true;
    this.mayHaveWork = true;
  }

  get outOfCredits(): boolean {
    return this.creditsExhausted;
  }

  /** Seeds the frontier (crawls) and sends `started`, once per job, not once per run. */
  async start(): Promise<void> {
    if (!this.state.started) {
      this.webhooks.notify('started');
      if (this.input.crawler) {
        const seeded = await crawlKickoffActivities.startCrawl({
          jobId: this.input.jobId,
          teamId: this.input.teamId,
          crawler: this.input.crawler,
          threatProtection: this.input.scrapeOptions.threatProtection,
        });
        this.state.crawlDelaySecs = seeded.crawlDelaySecs;
      }
      this.state.started = true;
      this.phase = 'scraping';
    }
    this.delayMs = Math.round((this.input.delaySecs ?? this.state.crawlDelaySecs ?? 0) * 1000);
  }

  /** Runs pages until nothing is queued or in flight, credits run out, or the run should continue-as-new. */
  async scrapeUntilIdle(): Promise<IdleReason> {
    return this.delayMs === 0 ? this.runLanes() : this.runSpaced();
  }

  /**
   * Pages that must start `delayMs` apart: one page per activity, spaced by the workflow's
   * timers, claimed from the frontier by the workflow itself. A delay means "one request at a
   * time" unless the caller also asked for concurrency.
   */
  private async runSpaced(): Promise<IdleReason> {
    const concurrency = this.input.maxConcurrency === undefined ? 1 : this.concurrency;
    const { claimPages } = bookkeepingActivities;
    for (;;) {
      const stop = await this.runEnd();
      if (stop) return stop;
      await condition(
        () =>
          this.creditsExhausted ||
          (this.inFlight < concurrency && (this.state.buffer.length > 0 || this.mayHaveWork || this.inFlight === 0)),
      );
      if (this.creditsExhausted) continue;
      if (this.state.buffer.length === 0) {
        if (this.mayHaveWork) {
          this.mayHaveWork = false;
          const claimId = `${workflowInfo().workflowId}/${this.state.claimSeq}`;
          this.state.claimSeq += 1;
          const bestFirst = this.input.crawler?.focus !== undefined;
          // Best first claims only what the free lanes start now, so the links their pages find
          // compete for the next claim.
          const max = bestFirst ? concurrency - this.inFlight : this.claimSize;
          this.state.buffer = await claimPages({ jobId: this.input.jobId, claimId, max, ...(bestFirst && { bestFirst }) });
          if (this.state.buffer.length === max) this.mayHaveWork = true;
          continue;
        }
        if (this.inFlight === 0) return 'drained';
        continue;
      }
      if (this.pagesThisRun > 0) await sleep(this.delayMs);
      const page = this.state.buffer.shift()!;
      this.inFlight += 1;
      this.pagesThisRun += 1;
      // Not awaited here: inFlight tracks it, and runPage never rejects.
      void this.runPage(page);
      this.showProgress();
    }
  }

  /**
   * Keeps one frontier slice running per unit of the job's concurrency. A slice works the
   * frontier in Postgres on its own and reports when the job had nothing left in flight, so the
   * workflow does no claiming: it only counts, notifies and decides when the run ends.
   */
  private async runLanes(): Promise<IdleReason> {
    for (;;) {
      await condition(
        () =>
          this.failure !== undefined ||
          this.creditsExhausted ||
          this.inFlight === 0 ||
          (this.inFlight < this.concurrency && this.mayHaveWork && this.pagesLeftInRun() > 0),
      );
      if (this.failure !== undefined) throw this.failure;
      const stop = await this.runEnd();
      if (stop) return stop;
      // Woken with nothing in flight: nothing is known to come.
      if (!this.mayHaveWork) return 'drained';
      if (this.pagesLeftInRun() <= 0) continue;
      // Not awaited here: inFlight tracks it, and runSlice never rejects.
      void this.runSlice();
      this.showProgress();
    }
  }

  /**
   * Why this run takes no more pages, once those in flight are done: the team's credits ran out,
   * or the run is long enough to continue-as-new. Undefined while it goes on.
   */
  private async runEnd(): Promise<IdleReason | undefined> {
    if (this.creditsExhausted) {
      await condition(() => this.inFlight === 0);
      return 'out-of-credits';
    }
    if (this.pagesThisRun >= this.pagesPerRun || workflowInfo().continueAsNewSuggested) {
      this.phase = 'finishing';
      await condition(() => this.inFlight === 0);
      return 'continue-as-new';
    }
    return undefined;
  }

  /** Pages this run may still hand to new slices: those in flight may claim up to their own budgets. */
  private pagesLeftInRun(): number {
    return this.pagesPerRun - this.pagesThisRun - this.pagesPromised;
  }

  /** One lane's slice, then the page it handed back, if any, alone. */
  private async runSlice(): Promise<void> {
    const { crawlSlice } = sliceActivities(SLICE_MS, this.input.scrapeOptions.timeout);
    const sliceId = `${workflowInfo().workflowId}/s${this.state.claimSeq}`;
    this.state.claimSeq += 1;
    // The run's pages left, shared between the lanes still free, so a run claims pagesPerRun.
    const maxPages = Math.ceil(this.pagesLeftInRun() / (this.concurrency - this.inFlight));
    this.inFlight += 1;
    this.pagesPromised += maxPages;
    let handBack: FrontierPage | undefined;
    try {
      const result = await crawlSlice({
        ...this.jobPageInput(),
        sliceId,
        maxPages,
        sliceMs: SLICE_MS,
        withDocumentIds: this.input.webhook !== undefined,
      });
      this.pagesThisRun += result.claimed;
      this.state.completed += result.completed;
      this.state.failed += result.failed;
      this.state.creditsUsed += result.creditsUsed;
      for (const documentId of result.documentIds) this.webhooks.notify('page', { documentId });
      if (result.ended === 'drained') this.mayHaveWork = false;
      if (result.ended === 'out-of-credits') this.creditsExhausted = true;
      handBack = result.handBack;
    } catch (err) {
      // Slices are retried until their worker and the database answer: only a cancel ends one
      // early, and the workflow records that itself.
      if (!isCancellation(err)) this.failure = err;
    }
    this.pagesPromised -= maxPages;
    // runPage releases the lane's place in inFlight.
    if (handBack) return this.runPage(handBack);
    this.inFlight -= 1;
    this.showProgress();
  }

  /** Back to work after a completion found pages appended meanwhile. */
  resume(): void {
    this.phase = 'scraping';
    this.pagesAddedAfterFinish = false;
    this.mayHaveWork = true;
  }

  showProgress(): void {
    const { completed, failed, runs } = this.state;
    setCurrentDetails(`**${this.phase}** · ${completed} completed · ${failed} failed · ${this.inFlight} in flight · run ${runs}`);
  }

  /** What every page activity of this job is given besides its page(s). */
  private jobPageInput(): Omit<CrawlPageInput, 'page'> {
    const { input } = this;
    return {
      jobId: input.jobId,
      teamId: input.teamId,
      scrapeOptions: input.scrapeOptions,
      crawler: input.crawler,
      mediaBaseUrl: input.mediaBaseUrl,
      ...(input.changeDetection && { changeDetection: input.changeDetection }),
    };
  }

  private async runPage(page: FrontierPage): Promise<void> {
    const { crawlPage } = pageActivities(this.input.scrapeOptions.timeout);
    try {
      const pageInput = { ...this.jobPageInput(), page };
      // While it waits for one of the team's slots, the page keeps its place in `inFlight`.
      this.pageDone(await untilSlotGranted(() => crawlPage(pageInput)));
    } catch (err) {
      // A cancelled job stops its pages; the workflow records the cancel.
      if (isCancellation(err)) return;
      const known = fromFailure(err);
      await this.pageFailed(page, known?.code ?? 'SCRAPE_ALL_ENGINES_FAILED', known?.message ?? (err instanceof Error ? errorChain(err) : String(err)));
    } finally {
      this.inFlight -= 1;
      this.showProgress();
    }
  }

  private pageDone(result: { documentId: string; creditsUsed: number; enqueued: number }): void {
    this.state.completed += 1;
    this.state.creditsUsed += result.creditsUsed;
    if (result.enqueued > 0) this.mayHaveWork = true;
    this.webhooks.notify('page', { documentId: result.documentId });
  }

  private async pageFailed(page: FrontierPage, code: string, error: string): Promise<void> {
    // The page was refused before its fetch, or its charge was: it is not a failed page. The
    // loop stops claiming, and the job ends completed with what it has, and a warning.
    if (code === 'INSUFFICIENT_CREDITS') {
      this.creditsExhausted = true;
      return;
    }
    this.state.failed += 1;
    await bookkeepingActivities.recordPageFailure({ jobId: this.input.jobId, teamId: this.input.teamId, page, code, error });
  }
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
