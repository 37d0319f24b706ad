/**
 * The job that crawls and batch scrapes share: claim queued pages from the Postgres frontier,
 * scrape them as activities with bounded concurrency, record every outcome, and finish once
 * nothing is queued or in flight. The workflow holds only counters and a small buffer; pages,
 * documents and the seen-set live in Postgres, so a run can continue-as-new at any page boundary.
 *
 * This function wires the handlers and decides how a run ends (finish, continue-as-new, cancel,
 * fail); the run's state and its page loop are in workflows/page-job-run.ts.
 */
import { allHandlersFinished, CancellationScope, condition, isCancellation, setHandler } from '@temporalio/workflow';
import { CREDITS_EXHAUSTED_WARNING } from '../lib/credits.js';
import { bookkeepingActivities } from './activities.js';
import { getProgressQuery, pagesAddedSignal } from './messages.js';
import { PageJobRun, type PageJobInput, type PageJobResult } from './page-job-run.js';
import { WebhookFanout } from './webhook-fanout.js';

export type { PageJobInput, PageJobResult, PageJobState } from './page-job-run.js';

export async function runPageJob(
  input: PageJobInput,
  continueAsNewWith: (next: PageJobInput) => Promise<never>,
): Promise<PageJobResult> {
  const webhooks = new WebhookFanout(input);
  const run = new PageJobRun(input, webhooks);
  setHandler(getProgressQuery, () => run.progress());
  setHandler(pagesAddedSignal, () => run.onPagesAdded());
  const { finishJob } = bookkeepingActivities;

  let continuing = false;
  try {
    await run.start();
    for (;;) {
      const idle = await run.scrapeUntilIdle();
      if (idle === 'continue-as-new') {
        await webhooks.drain();
        await condition(allHandlersFinished);
        continuing = true;
        break;
      }
      run.phase = 'done';
      const completed = await finishJob({
        jobId: input.jobId,
        status: 'completed',
        // Claimed and queued pages leave the totals: they will not be scraped.
        ...(idle === 'out-of-credits' ? { warning: CREDITS_EXHAUSTED_WARNING, retireOpenPages: true } : {}),
      });
      if (completed) break;
      // Pages were appended while this run wound down: back to work on them.
      run.resume();
    }

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
    const error = err instanceof Error ? err.message : String(err);
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
