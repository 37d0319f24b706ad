/**
 * What crawl and batch-scrape status readers share, so the HTTP status route and the websocket
 * report a job identically: kind lookup, the status figures, and how documents are paged.
 */
import { readFocus } from '../db/repositories/crawl-focus.js';
import { coverage, type StopReason } from '../lib/crawl/relevance.js';
import { readJobProgress, type DocumentPageQuery } from '../db/repositories/crawl-read.js';
import { findTeamJob } from '../db/repositories/jobs.js';
import { findExpiredJob } from '../db/repositories/retention.js';
import { listWebhookFailures } from '../db/repositories/webhook-failures.js';
import type { Db } from '../db/connect.js';
import type { Job, JobKind, JobStatus } from '../db/schema.js';
import { httpError } from './errors.js';

export type ListedJobKind = 'crawl' | 'batch_scrape';

/** Firecrawl caps one status response at 10 MiB of documents and points to the rest with `next`. */
export const MAX_PAGE_BYTES = 10 * 1024 * 1024;

/**
 * While a job runs, documents are listed only once they are this old. Rows are ordered by
 * created_at, but two workers' inserts can commit in the other order; without the delay a reader
 * could move past a row that becomes visible a moment later, and offset pages would shift under
 * the caller. Once the job is terminal every row is committed and nothing is held back.
 */
const RUNNING_JOB_SETTLE_MS = 1_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isJobId(id: string): boolean {
  return UUID.test(id);
}

/** Another team's job, or a job of a kind the route does not list, is reported exactly like a missing one. */
export async function findListedJob(
  db: Db,
  teamId: string,
  jobId: string,
  kinds: readonly ListedJobKind[],
): Promise<Job | undefined> {
  if (!isJobId(jobId)) return undefined;
  const job = await findTeamJob(db, teamId, jobId);
  return job && (kinds as readonly string[]).includes(job.kind) ? job : undefined;
}

/**
 * The team's job of one of `kinds`, for a read, cancel or append. A job past its retention answers
 * 404 JOB_EXPIRED, purged or not yet; anything else that is not found, another team's job
 * included, answers 404 JOB_NOT_FOUND.
 */
export async function requireTeamJob(db: Db, teamId: string, jobId: string, kinds: readonly JobKind[]): Promise<Job> {
  const listed = (kind: JobKind) => kinds.includes(kind);
  if (isJobId(jobId)) {
    const job = await findTeamJob(db, teamId, jobId);
    if (job && listed(job.kind) && job.expires_at > new Date()) return job;
    const expired = await findExpiredJob(db, teamId, jobId);
    if (expired && listed(expired.kind)) throw httpError('JOB_EXPIRED', 'Job expired', { expiredAt: expired.expiredAt.toISOString() });
  }
  throw httpError('JOB_NOT_FOUND', 'Job not found');
}

export interface JobStatusView {
  status: JobStatus;
  completed: number;
  total: number;
  creditsUsed: number;
  expiresAt: string;
  warning?: string;
  /** Why a failed job failed; the SDK ignores it, people reading the JSON need it. */
  error?: string;
  /** A query-directed crawl's (a Trawl extension): why it stopped (null while it runs), and how much of the query its relevant pages cover. */
  stopReason?: StopReason | null;
  coverage?: number;
}

const ROBOTS_WARNING =
  'Some pages were not crawled because robots.txt disallowed them. ' +
  'See the /errors endpoint of this job for the list of blocked URLs.';

export async function jobStatusView(db: Db, job: Job): Promise<JobStatusView> {
  const [progress, focus] = await Promise.all([readJobProgress(db, job.id), job.kind === 'crawl' ? readFocus(db, job.id) : undefined]);
  // Only once the job ends: more pages may still be blocked while it runs.
  const robotsWarning = job.status !== 'scraping' && progress.robotsBlocked > 0 ? ROBOTS_WARNING : undefined;
  const warning = [job.warning, robotsWarning].filter(Boolean).join(' ');
  return {
    status: job.status,
    completed: progress.completed,
    total: progress.total,
    creditsUsed: progress.creditsUsed,
    expiresAt: job.expires_at.toISOString(),
    ...(warning && { warning }),
    ...(job.status === 'failed' && job.error && { error: job.error }),
    ...(focus && { stopReason: focus.stopReason, coverage: coverage(focus.pagesPerTerm, focus.evidence) }),
  };
}

/** Page settings for reading a job's completed documents, given the status read just before. */
export function documentPaging(
  status: JobStatus,
  page: Pick<DocumentPageQuery, 'skip' | 'after' | 'limit'>,
): DocumentPageQuery {
  return { ...page, maxBytes: MAX_PAGE_BYTES, settleMs: status === 'scraping' ? RUNNING_JOB_SETTLE_MS : 0 };
}

export interface WebhookFailureView {
  event: string;
  attempt: number;
  final: boolean;
  code: string;
  error: string;
  timestamp: string;
}

/**
 * Trawl's own addition to a job's status or errors: its failed webhook deliveries, one per
 * attempt, `final` when the event was given up. A monitor check's are read with `monitorCheck`.
 */
export async function webhookFailureViews(db: Db, id: string, options: { monitorCheck?: boolean } = {}): Promise<WebhookFailureView[]> {
  const rows = await listWebhookFailures(db, id, options);
  return rows.map((w) => ({ event: w.event, attempt: w.attempt, final: w.final, code: w.code, error: w.error, timestamp: w.created_at.toISOString() }));
}
