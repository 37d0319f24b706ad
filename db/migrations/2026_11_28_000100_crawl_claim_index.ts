import type { Kysely } from 'kysely';

/**
 * A frontier slice (activities/crawl-slice.ts) claims many pages under one claim id and, when it
 * ends, totals them by that id; without the index each total would walk every page of the job.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('crawl_pages_claim_idx').ifNotExists().on('crawl_pages').columns(['job_id', 'claim_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('crawl_pages_claim_idx').ifExists().execute();
}
