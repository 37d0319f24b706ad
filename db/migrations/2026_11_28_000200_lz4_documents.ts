import { sql, type Kysely } from 'kysely';

/**
 * Page bodies compressed with lz4 instead of pglz. A crawl page writes its Document twice (the
 * job's row and the page cache's copy), some 34 KB of JSON each on the bench site: pglz took
 * 1.24 ms per insert there, lz4 0.65–0.79 ms, for 28% more disk; on 2 cores Postgres competes with
 * the worker for the same CPU. Only values written from now on change. A server built without
 * lz4 keeps pglz.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    do $$ begin
      alter table documents alter column document set compression lz4;
      alter table page_cache alter column document set compression lz4;
      alter table page_cache alter column outcome set compression lz4;
    exception when feature_not_supported then null;
    end $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table documents alter column document set compression default`.execute(db);
  await sql`alter table page_cache alter column document set compression default`.execute(db);
  await sql`alter table page_cache alter column outcome set compression default`.execute(db);
}
