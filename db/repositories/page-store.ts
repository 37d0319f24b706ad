/**
 * The one statement that stores a fetched page with everything that goes with it: settlePage
 * (crawl-pages.ts) for a crawl or batch page, storeScrapeResult (documents.ts) for a single scrape.
 * One statement is one transaction and one round trip, so a crash never leaves a Document without
 * its charge, and the team's usage row, which every page of the team charges, is locked only from
 * the charge to the commit, which follows at once in the server.
 *
 * The parts of a statement are otherwise unordered; the select list reads each in turn, which
 * orders them: the caller's parts, then the page-cache copy, then the charge, last. A refused
 * charge raises its own SQLSTATE (ledger.ts), so the whole statement fails and nothing of the
 * page is stored.
 */
import { sql, type OperationNodeSource, type RawBuilder } from 'kysely';
import type { Db } from '../connect.js';
import { PREPARED } from '../prepared.js';
import type { NewDocument } from '../schema.js';
import { chargeCtes, chargeMade, creditLimitReachedIn, type LedgerCharge } from './ledger.js';
import { cacheStore, evictIfOver, type CacheCopy } from './page-cache.js';

/** The page's Document, kept once per job and URL, as the CTE `inserted` (empty when it was there already). */
export function documentInsert(db: Db, document: NewDocument): RawBuilder<unknown> {
  const insert = db
    .insertInto('documents')
    .values(document)
    .onConflict((oc) => oc.columns(['job_id', 'url_key']).doNothing())
    .returning(['id', 'created_at', 'document']);
  return sql`inserted as (${insert})`;
}

export interface PageStore {
  /** CTEs the parts read, `documentInsert` among them. */
  ctes: RawBuilder<unknown>[];
  /** Writes that cannot be refused, each a CTE returning a row per row it wrote. */
  parts: { name: string; body: OperationNodeSource }[];
  /** What the statement returns, read before the parts. */
  select: RawBuilder<unknown>;
  cacheCopy?: CacheCopy;
  /** Made only when this statement inserted the Document. */
  charge?: LedgerCharge;
}

export async function storePage<Row extends object>(db: Db, store: PageStore): Promise<Row> {
  const cache = store.cacheCopy && cacheStore(store.cacheCopy);
  const charge = store.charge && store.charge.credits > 0 ? store.charge : undefined;
  const ctes = [
    ...store.ctes,
    ...store.parts.map((part) => sql`${sql.id(part.name)} as (${part.body})`),
    // A copy that carries its own markdown is written whether or not this statement stored the
    // Document; one that shares the Document's only with it (page-cache.ts). The team's cache
    // total is raised by a statement trigger, at the statement's end.
    ...(cache ? [cache.ctes] : []),
    ...(charge ? [chargeCtes(charge, sql<boolean>`exists (select 1 from inserted)`)] : []),
  ];
  const written = sql.join(store.parts.map((part) => sql`(select count(*) from ${sql.id(part.name)})`), sql` + `);
  let row: Row & { cache_over: boolean | null };
  try {
    const { rows } = await sql<Row & { cache_over: boolean | null }>`
      with ${sql.join(ctes)}
      select ${store.select}, ${written} as written,
        ${cache ? sql`exists (select 1 from stored) and ${cache.over}` : sql`null`} as cache_over
        ${charge ? sql`, ${chargeMade} as charged` : sql``}${PREPARED}`.execute(db);
    row = rows[0]!;
  } catch (err) {
    throw creditLimitReachedIn(err, charge);
  }
  if (cache) await evictIfOver(db, cache, row.cache_over === true);
  return row;
}
