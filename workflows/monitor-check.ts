/**
 * One check of a monitor, started by the monitor's Temporal Schedule or by POST /v2/monitor/{id}/run:
 *
 * 1. beginMonitorCheck records the check, or records it skipped (another check is running:
 *    `skipped_overlap`; the team has no credits: `skipped_no_credits`) and ends it there.
 * 2. Each target runs as a child workflow of its own job: a batch scrape (scrape targets) or a crawl
 *    (crawl targets), the same page loop every job uses, with the monitor's change tracking. Search
 *    targets are one activity each (runMonitorSearch), beside them.
 * 3. finishMonitorCheck compares what they stored with the previous check, judges changes against
 *    the goal, and ends the check; then the signed webhooks go out: monitor.page for each page
 *    that is not `same`, then monitor.check.completed; and, when the monitor asks for it and the
 *    check found something, an email.
 */
import { ApplicationFailure, CancellationScope, executeChild, proxyActivities, uuid4, workflowInfo } from '@temporalio/workflow';
import type { BeginMonitorCheckResult, FinishMonitorCheckResult } from '../activities/monitor/check.js';
import type { TrawlActivities } from '../activities/index.js';
import { fromFailure } from '../lib/errors.js';
import { bookkeepingActivities, pageActivities } from './activities.js';
import { batchScrapeWorkflow } from './batch-scrape.js';
import { crawlWorkflow } from './crawl.js';
import { JobKindAttribute, TeamIdAttribute } from './search-attributes.js';
import { WebhookFanout } from './webhook-fanout.js';

export interface MonitorCheckWorkflowInput {
  monitorId: string;
  /** Set by /run, which wrote the queued check; a scheduled start makes its own. */
  checkId?: string;
  trigger: 'scheduled' | 'manual';
}

export interface MonitorCheckWorkflowResult {
  checkId: string;
  status: BeginMonitorCheckResult['status'] | FinishMonitorCheckResult['status'];
  summary?: FinishMonitorCheckResult['summary'];
}

const SEARCH_TIMEOUT_MS = 60_000;

/** A mail server that is down for minutes loses the email rather than holding the check open. */
const { sendMonitorEmail } = proxyActivities<TrawlActivities>({
  startToCloseTimeout: '1m',
  retry: { initialInterval: '5s', backoffCoefficient: 2, maximumAttempts: 4, nonRetryableErrorTypes: ['NonRetryablePageError'] },
});

export async function monitorCheckWorkflow(input: MonitorCheckWorkflowInput): Promise<MonitorCheckWorkflowResult> {
  const info = workflowInfo();
  const checkId = input.checkId ?? uuid4();
  const { beginMonitorCheck } = bookkeepingActivities;
  const begun = await beginMonitorCheck({
    monitorId: input.monitorId,
    checkId,
    trigger: input.trigger,
    workflowId: info.workflowId,
    ...(input.trigger === 'scheduled' && { scheduledFor: info.startTime.getTime() }),
  });
  if (begun.status !== 'running' || !begun.teamId) return { checkId, status: begun.status };
  try {
    return await runCheck(input, checkId, begun, begun.teamId);
  } catch (err) {
    const error = fromFailure(err)?.message ?? (err instanceof Error ? err.message : String(err));
    // Cancelled or failed: recorded, so the monitor's next check is not skipped as an overlap.
    await CancellationScope.nonCancellable(() => bookkeepingActivities.failMonitorCheck({ monitorId: input.monitorId, checkId, error }));
    throw err;
  }
}

async function runCheck(input: MonitorCheckWorkflowInput, checkId: string, begun: BeginMonitorCheckResult, teamId: string): Promise<MonitorCheckWorkflowResult> {
  const { finishMonitorCheck } = bookkeepingActivities;
  const searches = Promise.all(
    begun.searches.map(({ targetId, plan }) =>
      pageActivities(SEARCH_TIMEOUT_MS)
        .runMonitorSearch({ monitorId: input.monitorId, checkId, teamId, targetId, plan })
        .catch((err: unknown) => ({ targetId, error: fromFailure(err)?.message ?? (err instanceof Error ? err.message : String(err)) })),
    ),
  );
  const targets = Promise.all(
    begun.jobs.map(async (job) => {
      const options = {
        workflowId: job.workflowId,
        typedSearchAttributes: [
          { key: TeamIdAttribute, value: teamId },
          { key: JobKindAttribute, value: job.input.kind },
        ],
      };
      try {
        await (job.type === 'crawl' && job.input.crawler
          ? executeChild(crawlWorkflow, { ...options, args: [{ ...job.input, kind: 'crawl' as const, crawler: job.input.crawler }] })
          : executeChild(batchScrapeWorkflow, { ...options, args: [job.input] }));
        return { targetId: job.targetId, type: job.type, jobId: job.jobId };
      } catch (err) {
        // The job recorded its own failure; the check reports the target's pages and the error.
        const error = fromFailure(err)?.message ?? (err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err));
        return { targetId: job.targetId, type: job.type, jobId: job.jobId, error };
      }
    }),
  );
  const finished = await finishMonitorCheck({ monitorId: input.monitorId, checkId, teamId, targets: await targets, searches: await searches });

  const webhooks = new WebhookFanout({ jobId: checkId, teamId, kind: 'monitor', webhook: begun.webhook });
  for (const pageId of finished.eventPageIds) webhooks.notify('page', { documentId: pageId });
  await webhooks.drain();
  webhooks.notify('completed', {
    data: [{ monitorId: input.monitorId, checkId, status: finished.status, summary: finished.summary, actualCredits: finished.actualCredits }],
    success: finished.status === 'completed',
    ...(finished.error !== null && { error: finished.error }),
  });
  await webhooks.drain();
  if (begun.email) await sendMonitorEmail({ monitorId: input.monitorId, checkId }).catch(() => undefined);
  // Recorded already; failing the workflow too makes the check stand out in the Temporal UI.
  if (finished.status === 'failed') throw ApplicationFailure.nonRetryable(finished.error ?? 'Every page of the check failed', 'MonitorCheckFailed');
  return { checkId, status: finished.status, summary: finished.summary };
}
