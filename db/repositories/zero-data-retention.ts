/**
 * Zero data retention (ZDR): what a ZDR job leaves behind once its results are delivered, or once
 * the short window for collecting them has passed. Its Documents lose their content (the rows stay
 * with their credits, so status figures and the ledger still add up), and the job row loses its
 * URL, its search query or prompt, and its result (search results, map links).
 */
import { sql } from 'kysely';
import type { Db } from '../connect.js';

/**
 * How long a finished ZDR job's undelivered results wait to be collected. Firecrawl keeps nothing
 * past the request; an asynchronous job (crawl, batch) needs a moment for its client to read them,
 * and this is that moment (Firecrawl keeps a ZDR agent result 24 hours; a page's content less).
 */
export const ZDR_COLLECTION_WINDOW_MS = 60 * 60 * 1000;

/** Forgets the content of one ZDR job; safe to run again. */
export async function forgetJobContent(db: Db, jobId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('documents')
      .set({ document: null, url: '', size_bytes: 0, error: null })
      .where('job_id', '=', jobId)
      .execute();
    await trx
      .updateTable('jobs')
      .set({ url: null, result: null, options: sql`options - 'query' - 'prompt'` })
      .where('id', '=', jobId)
      .where('zero_data_retention', '=', true)
      .execute();
  });
}

/** The purge's part: ZDR jobs that ended before `endedBefore` and still hold content; how many. */
export async function purgeUndeliveredZdrContent(db: Db, endedBefore: Date): Promise<number> {
  const jobs = await db
    .selectFrom('jobs')
    .select('id')
    .where('zero_data_retention', '=', true)
    .where('status', '!=', 'scraping')
    .where('updated_at', '<', endedBefore)
    .where((eb) =>
      eb.or([
        eb('url', 'is not', null),
        eb('result', 'is not', null),
        eb.exists(eb.selectFrom('documents').select('id').whereRef('documents.job_id', '=', 'jobs.id').where('documents.document', 'is not', null)),
      ]),
    )
    .limit(500)
    .execute();
  for (const { id } of jobs) await forgetJobContent(db, id);
  return jobs.length;
}
