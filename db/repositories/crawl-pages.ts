/**
 * The crawl frontier in Postgres: which pages a crawl or batch scrape will scrape, and where each
 * one is. Every write is idempotent, because Temporal delivers activities at least once.
 */
import type { Db } from '../connect.js';
import type { NewDocument } from '../schema.js';
import { recordCharge, type LedgerCharge } from './ledger.js';

export interface FrontierCandidate {
  url: string;
  urlKey: string;
  depth: number;
}

export interface ClaimedPage {
  url: string;
  urlKey: string;
  depth: number;
}

/**
 * Adds pages not seen before, never letting the job's frontier grow past `limit`. The job row is
 * locked for the duration, so concurrent page activities of one crawl cannot overshoot the limit
 * together. Returns how many pages were actually added.
 */
export async function enqueuePages(
  db: Db,
  jobId: string,
  limit: number,
  candidates: readonly FrontierCandidate[],
): Promise<number> {
  if (candidates.length === 0) return 0;
  return db.transaction().execute(async (trx) => {
    await trx.selectFrom('jobs').select('id').where('id', '=', jobId).forUpdate().executeTakeFirst();
    const { count } = await trx
      .selectFrom('crawl_pages')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('job_id', '=', jobId)
      .executeTakeFirstOrThrow();
    const room = limit - count;
    if (room <= 0) return 0;
    // The first spelling of a URL on the page is the one kept and fetched.
    const unique = [...new Map(candidates.toReversed().map((c) => [c.urlKey, c])).values()].reverse();
    const existing = new Set(
      (
        await trx
          .selectFrom('crawl_pages')
          .select('url_key')
          .where('job_id', '=', jobId)
          .where(
            'url_key',
            'in',
            unique.map((c) => c.urlKey),
          )
          .execute()
      ).map((r) => r.url_key),
    );
    const fresh = unique.filter((c) => !existing.has(c.urlKey)).slice(0, room);
    if (fresh.length === 0) return 0;
    await trx
      .insertInto('crawl_pages')
      .values(fresh.map((c) => ({ job_id: jobId, url_key: c.urlKey, url: c.url, depth: c.depth })))
      .onConflict((oc) => oc.columns(['job_id', 'url_key']).doNothing())
      .execute();
    return fresh.length;
  });
}

/**
 * Moves up to `max` queued pages to `scraping`, oldest first. A retry with the same `claimId`
 * returns the pages the first attempt claimed, so none are stranded by a lost activity result.
 */
export async function claimPages(db: Db, jobId: string, claimId: string, max: number): Promise<ClaimedPage[]> {
  const already = await db
    .selectFrom('crawl_pages')
    .select(['url', 'url_key', 'depth'])
    .where('job_id', '=', jobId)
    .where('claim_id', '=', claimId)
    .orderBy('seq')
    .execute();
  if (already.length > 0) return already.map(toClaimed);
  const claimed = await db
    .updateTable('crawl_pages')
    .set({ status: 'scraping', claim_id: claimId, updated_at: new Date() })
    .where('job_id', '=', jobId)
    .where(
      'url_key',
      'in',
      db
        .selectFrom('crawl_pages')
        .select('url_key')
        .where('job_id', '=', jobId)
        .where('status', '=', 'queued')
        .orderBy('seq')
        .limit(max)
        .forUpdate()
        .skipLocked(),
    )
    .returning(['url', 'url_key', 'depth', 'seq'])
    .execute();
  return claimed.sort((a, b) => Number(a.seq) - Number(b.seq)).map(toClaimed);
}

function toClaimed(r: { url: string; url_key: string; depth: number }): ClaimedPage {
  return { url: r.url, urlKey: r.url_key, depth: r.depth };
}

/**
 * Records a finished page: its document (kept once per job and URL), the frontier row's final
 * status and the page's charge, in one transaction so a crash never leaves one without the
 * others. A refused charge (CreditLimitReached) rolls all of it back: the page is not delivered.
 */
export async function settlePage(
  db: Db,
  page: { jobId: string; urlKey: string; status: 'completed' | 'failed'; errorCode?: string; error?: string },
  document: NewDocument,
  charge?: LedgerCharge,
): Promise<{ documentId: string; inserted: boolean }> {
  return db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('documents')
      .values(document)
      .onConflict((oc) => oc.columns(['job_id', 'url_key']).doNothing())
      .returning('id')
      .executeTakeFirst();
    const documentId =
      inserted?.id ??
      (
        await trx
          .selectFrom('documents')
          .select('id')
          .where('job_id', '=', page.jobId)
          .where('url_key', '=', page.urlKey)
          .executeTakeFirstOrThrow()
      ).id;
    await trx
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
      .execute();
    // Last, so the team's usage row is locked only for the commit. Only a first insert charges.
    if (inserted && charge) await recordCharge(trx, charge);
    return { documentId, inserted: Boolean(inserted) };
  });
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
