/**
 * Zero data retention, asked for by a request (`zeroDataRetention: true` on scrape, batch scrape
 * and crawl; `enterprise: ["zdr"]` on search) and allowed by the team's plan (`--zdr true`). A team
 * without it gets Firecrawl's refusal, alike for every job kind. A ZDR job carries the flag in its
 * ScrapeOptions (every page keeps nothing: activities/page/pipeline.ts) and in its row (its content
 * is forgotten once delivered: db/repositories/zero-data-retention.ts), and its workflow carries
 * the `ZeroDataRetention` search attribute (its history is deleted once it has closed:
 * lib/zero-data-retention-history.ts).
 */
import type { Response } from 'express';
import type { ScrapeOptions } from '../contracts/scrape-options.js';
import { forgetJobContent } from '../db/repositories/zero-data-retention.js';
import { deleteClosedZdrRuns } from '../lib/zero-data-retention-history.js';
import type { AppDeps } from './deps.js';
import { httpError } from './errors.js';
import { teamStandingOf } from './team-plan.js';

/** Firecrawl's text and status (400) for a team whose plan does not allow ZDR. */
export const ZDR_NOT_ALLOWED = "Zero data retention is enabled for this team. If you're interested in ZDR, please contact support@firecrawl.com";

/** Firecrawl's text and status (403) for `enterprise: ["zdr"]` on a search by such a team. */
export const ZDR_SEARCH_NOT_ALLOWED = 'Zero Data Retention (ZDR) search is not enabled for your team.';

/** Whether the job is ZDR; throws the refusal when it asks for ZDR and the plan does not allow it. */
export async function zeroDataRetentionOf(
  deps: AppDeps,
  res: Response,
  requested: boolean,
  refusal: { code: 'BAD_REQUEST' | 'FORBIDDEN'; message: string; option: string } = { code: 'BAD_REQUEST', message: ZDR_NOT_ALLOWED, option: 'zeroDataRetention' },
): Promise<boolean> {
  if (!requested) return false;
  if (!(await teamStandingOf(deps.db, res)).plan.zeroDataRetention) throw httpError(refusal.code, refusal.message, { option: refusal.option });
  return true;
}

/** The options every page of the job runs with. */
export function withZeroDataRetention<O extends ScrapeOptions>(options: O, zdr: boolean): O {
  return zdr ? { ...options, zeroDataRetention: true } : options;
}

/**
 * A ZDR job's results were delivered: its content goes now, and its Temporal history once its
 * workflow has closed. The answer does not wait for the workflow's last task; a history this
 * process does not see close (it stopped first) is left to the purge, every 10 minutes.
 */
export async function forgetDeliveredJob(deps: AppDeps, job: { id: string; workflowId: string }): Promise<void> {
  await forgetJobContent(deps.db, job.id);
  const handle = deps.temporal.workflow.getHandle(job.workflowId);
  void handle
    .result()
    .catch(() => undefined)
    .then(() => deleteClosedZdrRuns(deps.temporal, job.workflowId))
    .catch((err: unknown) => deps.log.warn({ jobId: job.id, code: (err as { code?: unknown }).code }, 'zdr: history left to the purge'));
}
