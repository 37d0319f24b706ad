/**
 * The crawl frontier in Postgres: which pages a crawl or batch scrape will scrape, and where each
 * one is. Every write is idempotent, because Temporal delivers activities at least once.
 */
import { sql, type QueryCreator, type RawBuilder, type Transaction } from 'kysely';
import type { FrontierPage } from '../../lib/crawl/settings.js';
import type { SearchEntry } from '../../lib/search/index-entry.js';
import type { Db } from '../connect.js';
import { PREPARED } from '../prepared.js';
import type { CrawlPageStatus, Database, NewDocument } from '../schema.js';
import { slotRelease, type SlotLease } from './concurrency-slots.js';
import { claimBestFirst, focusEvidenceUpdate, type FocusEvidence } from './crawl-focus.js';
import type { LedgerCharge } from './ledger.js';
import type { CacheCopy } from './page-cache.js';
import { documentInsert, storePage } from './page-store.js';
import { indexStoredPage } from './search-index.js';

export interface FrontierCandidate {
  url: string;
  urlKey: string;
  depth: number;
  /** A query-directed crawl's link score (crawl-focus.ts claims by it) and the page the link is on. */
  score?: number;
  parentUrl?: string;
}

export type ClaimedPage = FrontierPage;

export interface Enqueued {
  /** Pages added to the frontier. */
  added: number;
  /** The frontier holds `limit` pages: nothing will ever be added to it again. */
  full: boolean;
}

/** The first key of the advisory locks that order one job's enqueues; the second is the job's. */
const ENQUEUE_LOCK = 0x74726177;

/**
 * Adds pages not seen before, never letting the job's frontier grow past `limit`. The job's
 * enqueue lock is taken first, in its own statement, so that the statement that counts and
 * inserts runs on a snapshot taken after the lock: concurrent page activities of one crawl cannot
 * overshoot the limit together. Four round trips (begin, lock, count-and-insert, commit) whatever
 * the links.
 *
 * An advisory lock rather than the job row's: FOR UPDATE on the row also shut out every page
 * settling meanwhile (each takes the row's key-share lock), and settles queued behind it.
 */
export async function enqueuePages(
  db: Db,
  jobId: string,
  limit: number,
  candidates: readonly FrontierCandidate[],
): Promise<Enqueued> {
  if (candidates.length === 0) return { added: 0, full: false };
  // The first spelling of a URL on the page is the one kept and fetched.
  const unique = [...new Map(candidates.toReversed().map((c) => [c.urlKey, c])).values()].reverse();
  return db.transaction().execute(async (trx) => {
    await lockEnqueues(trx, jobId);
    const { rows } = await sql<{ added: number; room: number }>`
      with room as (
        select ${limit}::integer - count(*)::integer as n from crawl_pages where job_id = ${jobId}::uuid
      ), candidate as (
        select * from unnest(${unique.map((c) => c.urlKey)}::text[], ${unique.map((c) => c.url)}::text[], ${unique.map((c) => c.depth)}::integer[],
            ${unique.map((c) => c.score ?? null)}::real[], ${unique.map((c) => c.parentUrl ?? null)}::text[])
          with ordinality as c(url_key, url, depth, score, parent_url, ord)
      ), fresh as (
        select c.url_key, c.url, c.depth, c.score, c.parent_url from candidate c
        where not exists (select 1 from crawl_pages p where p.job_id = ${jobId}::uuid and p.url_key = c.url_key)
        order by c.ord
        limit greatest((select n from room), 0)
      ), inserted as (
        insert into crawl_pages (job_id, url_key, url, depth, score, parent_url)
        select ${jobId}::uuid, url_key, url, depth, score, parent_url from fresh
        on conflict (job_id, url_key) do nothing
        returning 1
      )
      select (select count(*) from inserted)::integer as added, (select n from room) as room${PREPARED}`.execute(trx);
    const { added, room } = rows[0]!;
    return { added, full: room - added <= 0 };
  });
}

/** Takes the job's enqueue lock until the end of `trx`. */
export async function lockEnqueues(trx: Transaction<Database>, jobId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(${ENQUEUE_LOCK}::integer, hashtext(${jobId}))`.execute(trx);
}

/**
 * Moves up to `max` queued pages to `scraping`, oldest first (best first for a query-directed
 * crawl, crawl-focus.ts). A retry with the same `claimId` returns the pages the first attempt
 * claimed, so none are stranded by a lost activity result.
 */
export async function claimPages(db: Db, jobId: string, claimId: string, max: number, bestFirst = false): Promise<ClaimedPage[]> {
  const already = await pagesClaimedBy(db, jobId, claimId);
  if (already.length > 0) return already;
  return (bestFirst ? claimBestFirst : claimQueued)(db, jobId, claimId, max);
}

/**
 * Moves up to `max` queued pages to `scraping` under `claimId`, oldest first, skipping pages
 * another claim is taking at this moment. A frontier slice claims one page at a time, many under
 * one id (activities/crawl-slice.ts).
 */
export async function claimQueued(db: Db, jobId: string, claimId: string, max: number): Promise<ClaimedPage[]> {
  // The pick is materialised, so it runs once. As `url_key in (subquery)` the planner may make
  // it the inner side of a nested-loop semi join, run once per outer row: each run skips the
  // rows this statement already updated and locks the next, and one claim of 1 took the whole
  // frontier (seen once crawl_pages grew two columns and the plan flipped).
  const { rows } = await sql<{ url: string; url_key: string; depth: number; seq: string; score: number | null; parent_url: string | null }>`
    with pick as materialized (
      select url_key from crawl_pages
      where job_id = ${jobId}::uuid and status = 'queued'
      order by seq
      limit ${max}::integer
      for update skip locked
    )
    update crawl_pages p set status = 'scraping', claim_id = ${claimId}, updated_at = now()
    from pick where p.job_id = ${jobId}::uuid and p.url_key = pick.url_key
    returning p.url, p.url_key, p.depth, p.seq, p.score, p.parent_url${PREPARED}`.execute(db);
  return rows.sort((a, b) => Number(a.seq) - Number(b.seq)).map(toClaimed);
}

/** The pages claimed under `claimId` (those in `status`, if given), oldest first. */
export async function pagesClaimedBy(db: Db, jobId: string, claimId: string, status?: CrawlPageStatus): Promise<ClaimedPage[]> {
  let query = db.selectFrom('crawl_pages').select(['url', 'url_key', 'depth', 'score', 'parent_url']).where('job_id', '=', jobId).where('claim_id', '=', claimId);
  if (status) query = query.where('status', '=', status);
  const rows = await query.orderBy('seq').execute();
  return rows.map(toClaimed);
}

export interface ClaimTotals {
  claimed: number;
  completed: number;
  failed: number;
  /** Credits of the completed pages' Documents. */
  creditsUsed: number;
  /** The completed pages' Documents, oldest page first; only when asked for. */
  documentIds: string[];
}

/**
 * What the pages claimed under `claimId` came to, read from the rows themselves, so that a
 * retried slice reports the pages an attempt that died had settled too, and each exactly once.
 */
export async function claimTotals(db: Db, jobId: string, claimId: string, withDocumentIds: boolean): Promise<ClaimTotals> {
  const { rows } = await sql<{ claimed: number; completed: number; failed: number; credits: number; document_ids: string[] | null }>`
    select count(*)::integer as claimed,
      (count(*) filter (where p.status = 'completed'))::integer as completed,
      (count(*) filter (where p.status = 'failed'))::integer as failed,
      coalesce(sum(d.credits_used) filter (where p.status = 'completed'), 0)::integer as credits,
      ${withDocumentIds ? sql`array_agg(d.id order by p.seq) filter (where p.status = 'completed' and d.id is not null)` : sql`null`} as document_ids
    from crawl_pages p left join documents d on d.id = p.document_id
    where p.job_id = ${jobId}::uuid and p.claim_id = ${claimId}`.execute(db);
  const row = rows[0]!;
  return { claimed: row.claimed, completed: row.completed, failed: row.failed, creditsUsed: row.credits, documentIds: row.document_ids ?? [] };
}

function toClaimed(r: { url: string; url_key: string; depth: number; score: number | null; parent_url: string | null }): ClaimedPage {
  return {
    url: r.url,
    urlKey: r.url_key,
    depth: r.depth,
    ...(r.score !== null && { score: r.score }),
    ...(r.parent_url !== null && { parentUrl: r.parent_url }),
  };
}

/** What a finished page settles besides its Document and frontier row. */
export interface PageSettlement {
  /** The page's charge, made only by the settle that stores its Document. */
  charge?: LedgerCharge;
  /** The concurrency slot the page held, freed with it. */
  lease?: SlotLease;
  /** The page's entry in the search index, written with its Document. */
  search?: SearchEntry;
  /** The page's copy for the team's page cache (db/repositories/page-cache.ts). */
  cacheCopy?: CacheCopy;
  /** A query-directed crawl's page: what it adds to the crawl's progress (crawl-focus.ts). */
  focus?: FocusEvidence;
}

/**
 * Records a finished page: its document (kept once per job and URL), its search index entry, the
 * frontier row's final status, its copy for the page cache, the page's charge and its slot's
 * release, in one statement (page-store.ts) so a crash never leaves one without the others. A
 * refused charge (CreditLimitReached) fails the statement and so rolls all of it back: the page
 * is not delivered, and no copy is cached. With the charge a statement of its own, the team's
 * usage row stayed locked until the worker, busy with other pages, got round to sending the
 * commit: 10.8 ms of waiting per page in the bench's crawl.
 */
export async function settlePage(
  db: Db,
  page: PageOutcome,
  document: NewDocument,
  settlement: PageSettlement = {},
): Promise<{ documentId: string; inserted: boolean }> {
  const { lease, search } = settlement;
  const existing = db.selectFrom('documents').select('id').where('job_id', '=', page.jobId).where('url_key', '=', page.urlKey);
  const outcome = await storePage<{ document_id: string | null; inserted: boolean }>(db, {
    ctes: [
      // The job row's key-share lock, which the foreign keys would take only at the statement's end:
      // an append to a batch holds that row while it adds frontier rows (lockJobFor), so this settle
      // must not hold its frontier row while it waits for the job row (the update is gated on it).
      sql`job as (select id from jobs where id = ${page.jobId}::uuid for key share)`,
      documentInsert(db, document),
      // An earlier attempt's row, when this one inserted none (one inserted now is not in the snapshot).
      sql`doc as (select id from inserted union all ${existing})`,
    ],
    parts: [
      ...(search ? [{ name: 'indexed', body: sql`${indexStoredPage(document.team_id, search, sql`inserted`)} returning 1` }] : []),
      {
        name: 'frontier',
        body: frontierUpdate(db, page, sql<string>`(select id from doc)`)
          .where(sql<boolean>`exists (select 1 from job) and exists (select 1 from doc)`)
          .returning(sql<number>`1`.as('one')),
      },
      ...(lease ? [{ name: 'slot', body: slotRelease(db, lease).returning(sql<number>`1`.as('one')) }] : []),
      ...(settlement.focus ? [{ name: 'focus', body: focusEvidenceUpdate(page.jobId, settlement.focus) }] : []),
    ],
    select: sql`(select id from doc) as document_id, exists (select 1 from inserted) as inserted`,
    cacheCopy: settlement.cacheCopy,
    charge: settlement.charge,
  });
  if (outcome.document_id !== null) return { documentId: outcome.document_id, inserted: outcome.inserted };
  // A concurrent attempt stored the Document after this statement's snapshot was taken.
  return db.transaction().execute(async (trx) => {
    const { id } = await trx.selectFrom('documents').select('id').where('job_id', '=', page.jobId).where('url_key', '=', page.urlKey).executeTakeFirstOrThrow();
    await frontierUpdate(trx, page, id).execute();
    return { documentId: id, inserted: false };
  });
}

/** A finished page's final frontier status. */
export interface PageOutcome {
  jobId: string;
  urlKey: string;
  status: 'completed' | 'failed';
  errorCode?: string;
  error?: string;
}

function frontierUpdate(q: QueryCreator<Database>, page: PageOutcome, documentId: string | RawBuilder<string>) {
  return (
    q
      .updateTable('crawl_pages')
      .set({
        status: page.status,
        document_id: documentId,
        error_code: page.errorCode ?? null,
        error: page.error ?? null,
        updated_at: new Date(),
      })
      .where('job_id', '=', page.jobId)
      .where('url_key', '=', page.urlKey)
      // A cancelled page stays cancelled: its result arrived after the user stopped the job.
      .where('status', '!=', 'cancelled')
  );
}

/** On cancel: pages not yet finished will never be scraped, so they leave the totals. */
export async function cancelOpenPages(db: Db, jobId: string): Promise<void> {
  await db
    .updateTable('crawl_pages')
    .set({ status: 'cancelled', updated_at: new Date() })
    .where('job_id', '=', jobId)
    .where('status', 'in', ['queued', 'scraping'])
    .execute();
}

export async function recordRobotsBlocked(db: Db, jobId: string, urls: readonly string[]): Promise<void> {
  if (urls.length === 0) return;
  await db
    .insertInto('robots_blocked')
    .values([...new Set(urls)].map((url) => ({ job_id: jobId, url })))
    .onConflict((oc) => oc.columns(['job_id', 'url']).doNothing())
    .execute();
}

export async function findCrawlRobots(db: Db, jobId: string, origin: string) {
  return db
    .selectFrom('crawl_robots')
    .select(['status', 'body'])
    .where('job_id', '=', jobId)
    .where('origin', '=', origin)
    .executeTakeFirst();
}

export async function saveCrawlRobots(
  db: Db,
  row: { jobId: string; origin: string; status: number; body: string },
): Promise<void> {
  await db
    .insertInto('crawl_robots')
    .values({ job_id: row.jobId, origin: row.origin, status: row.status, body: row.body })
    .onConflict((oc) => oc.columns(['job_id', 'origin']).doNothing())
    .execute();
}

/** Counts the writers care about: whether any work is left. */
export async function openPageCount(db: Db, jobId: string): Promise<number> {
  const { count } = await db
    .selectFrom('crawl_pages')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('job_id', '=', jobId)
    .where('status', 'in', ['queued', 'scraping'])
    .executeTakeFirstOrThrow();
  return count;
}
