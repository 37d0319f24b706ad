import { randomUUID } from 'node:crypto';
import { cancelOpenPages, claimPages as claimFrontierPages, settlePage } from '../db/repositories/crawl-pages.js';
import type { FocusSettings } from '../lib/crawl/settings.js';
import { finishFocus } from './site/focus-stop.js';
import { completeJobIfDrained, finishJob as finishJobRow } from '../db/repositories/jobs.js';
import type { Db } from '../db/connect.js';
import type { FrontierPage } from '../lib/crawl/settings.js';
import type { ActivityDeps } from './deps.js';

export interface ClaimPagesInput {
  jobId: string;
  /** Stable across retries of this claim, so a retry returns the same pages. */
  claimId: string;
  max: number;
  /** A query-directed crawl's: highest score first, within its limit. */
  bestFirst?: boolean;
}

export interface RecordPageFailureInput {
  jobId: string;
  teamId: string;
  page: FrontierPage;
  code: string;
  error: string;
}

export interface FinishJobInput {
  jobId: string;
  status: 'completed' | 'failed' | 'cancelled';
  error?: string;
  /** Shown by the job's status, e.g. that it stopped early for lack of credits. */
  warning?: string;
  /** Retire pages still queued or claimed, which will now never be scraped (always done on cancel). */
  retireOpenPages?: boolean;
  /** A query-directed crawl: its stop reason is recorded, and the links it did not follow are retired. */
  focus?: { settings: FocusSettings; limit: number };
}

/** Hands the workflow the next queued pages, oldest first (best first in a query-directed crawl). */
export function createClaimPagesActivity(deps: ActivityDeps) {
  return async function claimPages(input: ClaimPagesInput): Promise<FrontierPage[]> {
    return claimFrontierPages(deps.db, input.jobId, input.claimId, input.max, input.bestFirst);
  };
}

/** A page that failed for good: recorded once, with its code, for GET /crawl/{id}/errors. */
export function createRecordPageFailureActivity(deps: ActivityDeps) {
  return async function recordPageFailure(input: RecordPageFailureInput): Promise<void> {
    await recordFailedPage(deps.db, input);
  };
}

/** Settles a page that failed for good: its frontier row and a failed Document, once. */
export async function recordFailedPage(db: Db, input: RecordPageFailureInput): Promise<void> {
  await settlePage(
    db,
    { jobId: input.jobId, urlKey: input.page.urlKey, status: 'failed', errorCode: input.code, error: input.error },
    {
      id: randomUUID(),
      job_id: input.jobId,
      team_id: input.teamId,
      url: input.page.url,
      url_key: input.page.urlKey,
      status: 'failed',
      document: null,
      size_bytes: 0,
      error_code: input.code,
      error: input.error,
      credits_used: 0,
    },
  );
}

/** Records the job's end. A cancel, or an early stop, also retires pages that will now never be scraped. */
export function createFinishJobActivity(deps: ActivityDeps) {
  /** Returns false when a completion found pages still open (appended meanwhile): keep going. */
  return async function finishJob(input: FinishJobInput): Promise<boolean> {
    const warning = input.warning !== undefined ? { warning: input.warning } : {};
    if (input.status === 'completed' && input.focus && !input.retireOpenPages) {
      // Nothing is in flight and nothing left is claimable: links below minScore or past the
      // limit stay queued, and would keep a drained check waiting for ever.
      await finishFocus(deps.db, input.jobId, input.focus.settings, input.focus.limit);
      await cancelOpenPages(deps.db, input.jobId);
      await finishJobRow(deps.db, input.jobId, 'completed', { error: null, ...warning });
      return true;
    }
    if (input.status === 'completed' && !input.retireOpenPages) {
      return completeJobIfDrained(deps.db, input.jobId, warning);
    }
    if (input.status === 'cancelled' || input.retireOpenPages) await cancelOpenPages(deps.db, input.jobId);
    await finishJobRow(deps.db, input.jobId, input.status, { error: input.error ?? null, ...warning });
    return true;
  };
}
