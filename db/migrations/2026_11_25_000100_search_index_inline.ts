import { sql, type Kysely } from 'kysely';

/**
 * Keeps each page's tsvector in its row instead of out of line. A query ranks every page that
 * matches, and for a common word that is most of the team's pages: fetching each tsvector from
 * the TOAST table (and, in a sequential scan, once for the match and again for the rank) was
 * three quarters of the query (p50 37 → 9 ms over 10,000 pages, bench/RESULTS.md). The page text
 * goes out of line first, since only the top hits' snippets read it. pglz rather than the
 * server's default: it leaves tsvectors it cannot shrink by a quarter uncompressed, so most are
 * read without decompressing; lz4 would compress them a little and cost more to read (17 ms).
 * A tsvector too big for a page still goes out of line, as before.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table search_documents alter column tsv set storage main, alter column tsv set compression pglz`.execute(db);
  // Storage applies to values as they are written: recompute the stored ones (the generated
  // column is computed again on every update).
  await sql`update search_documents set content = content`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table search_documents alter column tsv set storage extended, alter column tsv set compression default`.execute(db);
}
