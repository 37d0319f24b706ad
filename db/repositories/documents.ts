import { sql } from 'kysely';
import type { SearchEntry } from '../../lib/search/index-entry.js';
import type { Db } from '../connect.js';
import type { DocumentRow, NewDocument } from '../schema.js';
import { slotRelease, type SlotLease } from './concurrency-slots.js';
import { jobFinish } from './jobs.js';
import type { LedgerCharge } from './ledger.js';
import type { CacheCopy } from './page-cache.js';
import { documentInsert, storePage } from './page-store.js';
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
 * Stores a single scrape's result: its Document with its charge, its job marked completed, the
 * concurrency slot it held released, its search index entry, and its copy for the page cache, in
 * one statement (page-store.ts).
 * Idempotent: a retried activity writing the same (job, url) again keeps the first row and gets
 * its id back, so a page is stored and counted once however often Temporal delivers the task.
 * A refused charge (CreditLimitReached) rolls all of it back: no document, the job still running,
 * the slot held. The commit notifies SCRAPE_STORED_CHANNEL, so a waiting API can answer at once.
 */
export async function storeScrapeResult(
  db: Db,
  result: { document: NewDocument; charge: LedgerCharge; lease: SlotLease; cacheCopy?: CacheCopy; search?: SearchEntry },
): Promise<{ id: string; inserted: boolean }> {
  const { document: doc, lease, search } = result;
  const { id } = await storePage<{ id: string | null }>(db, {
    ctes: [documentInsert(db, doc)],
    parts: [
      // Only the first store completes the job, so a job is notified once.
      { name: 'job', body: jobFinish(db, doc.job_id, 'completed').returning(sql`pg_notify(${SCRAPE_STORED_CHANNEL}, id::text)`.as('notified')) },
      { name: 'slot', body: slotRelease(db, lease).returning(sql<number>`1`.as('one')) },
      ...(search ? [{ name: 'indexed', body: sql`${indexStoredPage(doc.team_id, search, sql`inserted`)} returning 1` }] : []),
    ],
    select: sql`(select id from inserted) as id`,
    cacheCopy: result.cacheCopy,
    charge: result.charge,
  });
  if (id !== null) return { id, inserted: true };
  // An earlier attempt stored the Document: its id is the scrape's.
  const existing = await db
    .selectFrom('documents')
    .select('id')
    .where('job_id', '=', doc.job_id)
    .where('url_key', '=', doc.url_key)
    .executeTakeFirstOrThrow();
  return { id: existing.id, inserted: false };
}

export async function findDocument(db: Db, id: string): Promise<DocumentRow | undefined> {
  return db.selectFrom('documents').selectAll().where('id', '=', id).executeTakeFirst();
}
