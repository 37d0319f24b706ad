/**
 * The job that crawls and batch scrapes share: claim queued pages from the Postgres frontier,
 * scrape them as activities with bounded concurrency, record every outcome, and finish once
 * nothing is queued or in flight. The workflow holds only counters and a small buffer; pages,
 * documents and the seen-set live in Postgres, so a run can continue-as-new at any page boundary.
 *
 * This function wires the handlers and decides how a run ends (finish, continue-as-new, cancel,
 * fail); the run's state and its page loop are in workflows/page-job-run.ts.
 */
import { allHandlersFinished, CancellationScope, condition, isCancellation, setHandler, sleep } from '@temporalio/workflow';
import { CREDITS_EXHAUSTED_WARNING } from '../lib/credits.js';
import { fromFailure, toApplicationFailure, TrawlError } from '../lib/errors.js';
import { bookkeepingActivities } from './activities.js';
import { getProgressQuery, pagesAddedSignal } from './messages.js';
import { PageJobRun, type PageJobInput, type PageJobResult } from './page-job-run.js';
import { WebhookFanout } from './webhook-fanout.js';

export type { PageJobInput, PageJobResult, PageJobState } from './page-job-run.js';

/** What a kind of page job adds around its page loop. */
export interface PageJobHooks {
  /** Runs once per job, before the first page: adds pages to the frontier (extract expands its `/*` URLs here). */
  seed?: () => Promise<void>;
  /** Runs once every page is settled, before the job is marked completed (extract merges its pages' answers here). */
  beforeComplete?: () => Promise<void>;
}

export async function runPageJob(
  input: PageJobInput,
  continueAsNewWith: (next: PageJobInput) => Promise<never>,
  hooks: PageJobHooks = {},
): Promise<PageJobResult> {
  const webhooks = new WebhookFanout(input);
  const run = new PageJobRun(input, webhooks);
  setHandler(getProgressQuery, () => run.progress());
  setHandler(pagesAddedSignal, () => run.onPagesAdded());
  const { finishJob } = bookkeepingActivities;

  let continuing = false;
  const work = async () => {
    if (!run.state.started) await hooks.seed?.();
    await run.start();
    for (;;) {
      const idle = await run.scrapeUntilIdle();
      if (idle === 'continue-as-new') {
        await webhooks.drain();
        await condition(allHandlersFinished);
        continuing = true;
        return;
      }
      run.phase = 'done';
      if (idle === 'drained') await hooks.beforeComplete?.();
      const completed = await finishJob({
        jobId: input.jobId,
        status: 'completed',
        // Claimed and queued pages leave the totals: they will not be scraped.
        ...(idle === 'out-of-credits' ? { warning: CREDITS_EXHAUSTED_WARNING, retireOpenPages: true } : {}),
        ...(input.crawler?.focus && { focus: { settings: input.crawler.focus, limit: input.crawler.limit } }),
      });
      if (completed) return;
      // Pages were appended while this run wound down: back to work on them.
      run.resume();
    }
  };
  try {
    await (input.deadlineAt === undefined ? work() : beforeDeadline(input.deadlineAt, work));

    if (!continuing) {
      run.showProgress();
      await webhooks.drain();
      webhooks.notify('completed');
      await webhooks.drain();
    }
  } catch (err) {
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(() => finishJob({ jobId: input.jobId, status: 'cancelled' }));
      throw err;
    }
    // An activity's own error (extract's merge, say), not Temporal's "Activity task failed".
    const error = fromFailure(err)?.message ?? (err instanceof Error ? err.message : String(err));
    await CancellationScope.nonCancellable(async () => {
      await finishJob({ jobId: input.jobId, status: 'failed', error });
      await webhooks.drain();
      webhooks.notify('failed', { error });
      await webhooks.drain();
    });
    throw err;
  }
  // Outside the try: continue-as-new works by throwing, and that is not a job failure.
  if (continuing || run.pagesAddedAfterFinish) return continueAsNewWith({ ...input, state: run.state });
  const { completed, failed, creditsUsed } = run.state;
  return { status: 'completed', completed, failed, creditsUsed };
}

/**
 * `work`, failed with JOB_TIMEOUT if it is not done by `deadlineAt` (epoch ms): its scope is
 * cancelled, so pages in flight stop, and the job ends failed rather than cancelled.
 */
async function beforeDeadline(deadlineAt: number, work: () => Promise<void>): Promise<void> {
  const scope = new CancellationScope();
  const timer = new CancellationScope();
  let timedOut = false;
  void timer
    .run(() => sleep(Math.max(1, deadlineAt - Date.now())))
    .then(
      () => {
        timedOut = true;
        scope.cancel();
      },
      () => undefined,
    );
  try {
    await scope.run(work);
  } catch (err) {
    if (timedOut && isCancellation(err)) {
      throw toApplicationFailure(new TrawlError('JOB_TIMEOUT', 'The job did not finish within its timeout'));
    }
    throw err;
  } finally {
    timer.cancel();
  }
}
