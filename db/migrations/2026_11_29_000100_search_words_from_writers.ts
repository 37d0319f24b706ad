import { sql, type Kysely } from 'kysely';
import { up as indexByTrigger } from './2026_11_28_000300_search_tsv_once.js';

/**
 * The search index is written by the statements that store pages (db/repositories/search-index.ts),
 * with words cut by the worker (lib/search/lexemes.ts), instead of by a trigger running
 * Postgres's text-search parser: that parser was 7 of the 16 ms of database CPU a crawled page
 * cost. Entries indexed before it keep the parser's words: it once re-cut them with the worker's
 * tokenizer, but a migration runs the app's code as it is on the day it runs, not as it was, so
 * it no longer does (no release ever had such entries; a fresh database has none). The page
 * text is compressed with lz4, as documents are (2026_11_28_000200): pglz took 0.6 ms of the 3 ms an entry's write costs, and only the top hits' snippets read it back.
 * A server built without lz4 keeps pglz.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`drop trigger if exists search_index_document on documents`.execute(db);
  await sql`drop function if exists trawl_search_index_document()`.execute(db);
  await sql`
    do $$ begin
      alter table search_documents alter column content set compression lz4;
    exception when feature_not_supported then null;
    end $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table search_documents alter column content set compression default`.execute(db);
  await indexByTrigger(db);
  await sql`drop trigger if exists search_index_document on documents`.execute(db);
  await sql`
    create trigger search_index_document after insert or update of status, document on documents
    for each row execute function trawl_search_index_document()`.execute(db);
  await sql`update search_documents set tsv = setweight(to_tsvector('simple', title), 'A') || setweight(to_tsvector('simple', description), 'B') || setweight(to_tsvector('simple', content), 'C')`.execute(db);
}
