import { sql } from 'kysely';
import type { Db } from '../connect.js';

/** Puts a batch's URLs in its frontier; URLs already there are left as they are. */
export async function addBatchPages(
  db: Db,
  jobId: string,
  pages: readonly { url: string; urlKey: string }[],
): Promise<number> {
  let added = 0;
  // Chunks keep each INSERT under Postgres's 65535-parameter limit for 100k-URL batches.
  for (let i = 0; i < pages.length; i += 5000) {
    const chunk = pages.slice(i, i + 5000);
    const rows = await db
      .insertInto('crawl_pages')
      .values(chunk.map((p) => ({ job_id: jobId, url_key: p.urlKey, url: p.url, depth: 0 })))
      .onConflict((oc) => oc.columns(['job_id', 'url_key']).doNothing())
      .returning('url_key')
      .execute();
    added += rows.length;
  }
  return added;
}

/** Each settled page's `json` answer, in the order the pages were added (extract merges them so). */
export async function listPageAnswers(db: Db, jobId: string) {
  return db
    .selectFrom('crawl_pages as p')
    .innerJoin('documents as d', (join) => join.onRef('d.job_id', '=', 'p.job_id').onRef('d.url_key', '=', 'p.url_key'))
    .select(['p.url', sql<unknown>`d.document -> 'json'`.as('answer'), 'd.status', 'd.error'])
    .where('p.job_id', '=', jobId)
    .orderBy('p.seq')
    .execute();
}
