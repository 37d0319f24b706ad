import { sql } from 'kysely';
import type { SearchEntry } from '../../lib/search/index-entry.js';
import type { Db } from '../connect.js';
import type { DocumentRow, NewDocument } from '../schema.js';
import { slotRelease, type SlotLease } from './concurrency-slots.js';
import { jobFinish } from './jobs.js';
import { recordCharge, type LedgerCharge } from './ledger.js';
import { storeCachedPage, type CacheCopy } from './page-cache.js';
import { indexStoredPage } from './search-index.js';

/**
 * Notified with the job id when a job the API waits on has stored its result and completed: a
 * single scrape's Document, or the results of a search that scrapes nothing.
 */
export const SCRAPE_STORED_CHANNEL = 'trawl_scrape_stored';

/** Tells a waiting API, when `db`'s transaction commits, that job `jobId` has its result. */
export async function notifyResultStored(db: Db, jobId: string): Promise<void> {
  await sql`select pg_notify(${SCRAPE_STORED_CHANNEL}, ${jobId})`.execute(db);
}

/**
 * Stores a single scrape's result in one transaction: its Document with its charge, its job
 * marked completed, the concurrency slot it held released, its search index entry, and its copy
 * for the page cache.
 * Idempotent: a retried activity writing the same (job, url) again keeps the first row and gets
 * its id back, so a page is stored and counted once however often Temporal delivers the task.
 * A refused charge (CreditLimitReached) rolls all of it back: no document, the job still running,
 * the slot held. The commit notifies SCRAPE_STORED_CHANNEL, so a waiting API can answer at once.
 */
export async function storeScrapeResult(
  db: Db,
  result: { document: NewDocument; charge: LedgerCharge; lease: SlotLease; cacheCopy?: CacheCopy; search?: SearchEntry },
): Promise<{ id: string; inserted: boolean }> {
  const { document: doc, lease } = result;
  return db.transaction().execute(async (trx) => {
    // One statement for the writes that cannot be refused, so the transaction takes few round trips.
    const insert = trx
      .insertInto('documents')
      .values(doc)
      .onConflict((oc) => oc.columns(['job_id', 'url_key']).doNothing())
      .returning(['id', 'created_at', 'document']);
    // Only the first store completes the job, so a job is notified once.
    const completeJob = jobFinish(trx, doc.job_id, 'completed').returning(
      sql`pg_notify(${SCRAPE_STORED_CHANNEL}, id::text)`.as('notified'),
    );
    const indexed = result.search ? sql`, indexed as (${indexStoredPage(doc.team_id, result.search, sql`inserted`)})` : sql``;
    const { rows } = await sql<{ id: string }>`
      with job as (${completeJob}), slot as (${slotRelease(trx, lease)}), inserted as (${insert}) ${indexed}
      select id from inserted`.execute(trx);
    const inserted = rows[0];
    if (result.cacheCopy) await storeCachedPage(trx, result.cacheCopy);
    if (inserted) {
      // Last, so the team's usage row is locked only for the commit.
      await recordCharge(trx, result.charge);
      return { id: inserted.id, inserted: true };
    }
    const existing = await trx
      .selectFrom('documents')
      .select('id')
      .where('job_id', '=', doc.job_id)
      .where('url_key', '=', doc.url_key)
      .executeTakeFirstOrThrow();
    return { id: existing.id, inserted: false };
  });
}

export async function findDocument(db: Db, id: string): Promise<DocumentRow | undefined> {
  return db.selectFrom('documents').selectAll().where('id', '=', id).executeTakeFirst();
}
