import { sql, type Kysely } from 'kysely';
import { tsvectorLiteral } from '../../lib/search/lexemes.js';
import { up as indexByTrigger } from './2026_11_28_000300_search_tsv_once.js';

/**
 * The search index is written by the statements that store pages (db/repositories/search-index.ts),
 * with words cut by the worker (lib/search/lexemes.ts), instead of by a trigger running
 * Postgres's text-search parser: that parser was 7 of the 16 ms of database CPU a crawled page
 * cost. The entries already indexed are cut again the same way, so old and new pages answer a
 * query alike. The page text is compressed with lz4, as documents are (2026_11_28_000200): pglz
 * took 0.6 ms of the 3 ms an entry's write costs, and only the top hits' snippets read it back.
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
  let after: { team_id: string; url: string } | undefined;
  for (;;) {
    const { rows } = await sql<{ team_id: string; url: string; title: string; description: string; content: string }>`
      select team_id, url, title, description, content from search_documents
      ${after ? sql`where (team_id, url) > (${after.team_id}::uuid, ${after.url})` : sql``}
      order by team_id, url limit 500`.execute(db);
    if (rows.length === 0) return;
    const tsvs = rows.map((r) =>
      tsvectorLiteral([
        { text: r.title, weight: 'A' },
        { text: r.description, weight: 'B' },
        { text: r.content, weight: 'C' },
      ]),
    );
    await sql`
      update search_documents s set tsv = v.tsv::tsvector
      from unnest(${rows.map((r) => r.team_id)}::uuid[], ${rows.map((r) => r.url)}::text[], ${tsvs}::text[]) as v(team_id, url, tsv)
      where s.team_id = v.team_id and s.url = v.url`.execute(db);
    after = rows[rows.length - 1]!;
  }
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
