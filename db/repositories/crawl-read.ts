/** The read side of crawl and batch-scrape jobs: progress counts, result pages, errors, running crawls. */
import { sql } from 'kysely';
import type { Db } from '../connect.js';

export interface JobProgress {
  completed: number;
  failed: number;
  /**
   * Pages queued, in flight or finished; cancelled pages were never going to be scraped. A
   * query-directed crawl queues more links than it will scrape: its total is at most its limit.
   */
  total: number;
  creditsUsed: number;
  robotsBlocked: number;
}

/**
 * One statement, so the numbers come from one snapshot: separate reads could see a page finish
 * between them and report completed + failed > total.
 */
export async function readJobProgress(db: Db, jobId: string): Promise<JobProgress> {
  const row = await db
    .selectFrom('crawl_pages')
    .where('job_id', '=', jobId)
    .select((eb) => [
      sql<number>`count(*) filter (where status = 'completed')`.as('completed'),
      sql<number>`count(*) filter (where status = 'failed')`.as('failed'),
      sql<number>`least(count(*) filter (where status in ('queued', 'scraping', 'completed', 'failed')),
        (select page_limit from crawl_focus where job_id = ${jobId}::uuid))`.as('total'),
      eb
        .selectFrom('documents')
        .select(sql<number>`coalesce(sum(credits_used), 0)`.as('n'))
        .where('job_id', '=', jobId)
        .where('status', '=', 'completed')
        .as('creditsUsed'),
      eb
        .selectFrom('robots_blocked')
        .select(sql<number>`count(*)`.as('n'))
        .where('job_id', '=', jobId)
        .as('robotsBlocked'),
    ])
    .executeTakeFirstOrThrow();
  return {
    completed: Number(row.completed ?? 0),
    failed: Number(row.failed ?? 0),
    total: Number(row.total ?? 0),
    creditsUsed: Number(row.creditsUsed ?? 0),
    robotsBlocked: Number(row.robotsBlocked ?? 0),
  };
}

/** A position in a job's completed documents, exact to the microsecond so no row is read twice. */
export interface DocumentCursor {
  createdAt: string;
  id: string;
}

export interface DocumentPageQuery {
  /** Offset pagination (the status route's `skip`); ignored when `after` is given. */
  skip?: number;
  /** Keyset pagination (the websocket feed): documents strictly after this one. */
  after?: DocumentCursor | null;
  limit: number;
  /** The page ends before the running sum of `size_bytes` passes this; the first document always fits. */
  maxBytes: number;
  /** Leave out documents younger than this, so rows committed late cannot land before a cursor. */
  settleMs: number;
}

export interface DocumentPage {
  documents: Record<string, unknown>[];
  /** Whether more documents matching the query follow this page. */
  hasMore: boolean;
  /** The last document returned; null on an empty page. */
  last: DocumentCursor | null;
}

/** Completed documents in (created_at, id) order, one page cut by count and by JSON size. */
export async function listCompletedDocuments(db: Db, jobId: string, q: DocumentPageQuery): Promise<DocumentPage> {
  let candidates = db
    .selectFrom('documents')
    .select([
      'id',
      'created_at',
      'size_bytes',
      sql<string>`to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`.as('cursor_at'),
    ])
    .where('job_id', '=', jobId)
    .where('status', '=', 'completed')
    // A zero-data-retention job's delivered Documents keep their row but not their content.
    .where('document', 'is not', null)
    .orderBy('created_at')
    .orderBy('id')
    // One row beyond the page tells whether a `next` page exists without counting the rest.
    .limit(q.limit + 1);
  if (q.settleMs > 0) {
    candidates = candidates.where(
      'created_at',
      '<=',
      sql<Date>`clock_timestamp() - make_interval(secs => ${q.settleMs / 1000})`,
    );
  }
  if (q.after) {
    candidates = candidates.where(
      sql<boolean>`(created_at, id) > (${q.after.createdAt}::timestamptz, ${q.after.id}::uuid)`,
    );
  } else if (q.skip) {
    candidates = candidates.offset(q.skip);
  }

  const inOrder = sql`(order by c.created_at, c.id)`;
  const fits = sql<boolean>`row_number() over ${inOrder} <= ${q.limit}
    and (row_number() over ${inOrder} = 1 or sum(c.size_bytes) over ${inOrder} <= ${q.maxBytes})`;
  const rows = await db
    .selectFrom(
      db
        .selectFrom(candidates.as('c'))
        .select([
          'c.id',
          'c.created_at',
          'c.cursor_at',
          fits.as('included'),
        ])
        .as('r'),
    )
    // Bodies are read only for the rows that make the page.
    .leftJoin('documents as d', (join) => join.onRef('d.id', '=', 'r.id').on('r.included', '=', true))
    .select(['r.id', 'r.cursor_at', 'r.included', 'd.document'])
    .orderBy('r.created_at')
    .orderBy('r.id')
    .execute();

  const included = rows.filter((r) => r.included);
  const last = included.at(-1);
  return {
    documents: included.map((r) => r.document as Record<string, unknown>),
    hasMore: rows.length > included.length,
    last: last ? { createdAt: last.cursor_at, id: last.id } : null,
  };
}

export interface FailedDocument {
  id: string;
  createdAt: Date;
  url: string;
  errorCode: string | null;
  error: string | null;
}

export async function listFailedDocuments(db: Db, jobId: string): Promise<FailedDocument[]> {
  return db
    .selectFrom('documents')
    .select(['id', 'created_at as createdAt', 'url', 'error_code as errorCode', 'error'])
    .where('job_id', '=', jobId)
    .where('status', '=', 'failed')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function listRobotsBlockedUrls(db: Db, jobId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('robots_blocked')
    .select('url')
    .where('job_id', '=', jobId)
    .orderBy('url')
    .execute();
  return rows.map((r) => r.url);
}

export interface RunningCrawl {
  id: string;
  teamId: string;
  url: string | null;
  status: string;
  createdAt: Date;
  options: Record<string, unknown>;
}

export async function listRunningCrawls(db: Db, teamId: string): Promise<RunningCrawl[]> {
  return db
    .selectFrom('jobs')
    .select(['id', 'team_id as teamId', 'url', 'status', 'created_at as createdAt', 'options'])
    .where('team_id', '=', teamId)
    .where('kind', '=', 'crawl')
    .where('status', '=', 'scraping')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export interface JobDocument {
  url: string;
  status: 'completed' | 'failed';
  document: Record<string, unknown> | null;
  errorCode: string | null;
  error: string | null;
  creditsUsed: number;
}

/** Every settled document of a small job (a search's scraped results), bodies included. */
export async function listJobDocuments(db: Db, jobId: string): Promise<JobDocument[]> {
  const rows = await db
    .selectFrom('documents')
    .select(['url', 'status', 'document', 'error_code', 'error', 'credits_used'])
    .where('job_id', '=', jobId)
    .execute();
  return rows.map((r) => ({
    url: r.url,
    status: r.status,
    document: r.document as Record<string, unknown> | null,
    errorCode: r.error_code,
    error: r.error,
    creditsUsed: r.credits_used,
  }));
}
