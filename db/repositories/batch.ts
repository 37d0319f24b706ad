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
