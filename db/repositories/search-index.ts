/**
 * The built-in search index (search_documents): its writes, made with each stored page, and its
 * queries. Every query is filtered by team first: a team never sees another team's pages.
 */
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { INDEXED_TEXT_CHARS, type SearchEntry } from '../../lib/search/index-entry.js';
import { queryText } from '../../lib/search/lexemes.js';
import type { Db } from '../connect.js';

/**
 * The upsert of a page's entry, for the statement that stores its Document: `stored` is that
 * statement's CTE of the row it inserted (with `created_at` and `document`), empty when the page
 * was already there, so a retried store writes nothing. The entry's text is the Document's
 * markdown, read from that row rather than sent a second time: it is most of the page's bytes.
 * The newest version of a URL wins.
 */
export function indexStoredPage(teamId: string, entry: SearchEntry, stored: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`
    insert into search_documents as s (team_id, url, host, title, description, content, lang, published_at, scraped_at, is_article, images, tsv)
    select ${teamId}::uuid, ${entry.url}, ${entry.host}, ${entry.title}, ${entry.description},
      left(coalesce(document ->> 'markdown', ''), ${INDEXED_TEXT_CHARS}::integer), ${entry.lang},
      ${entry.publishedAt}::timestamptz, created_at, ${entry.isArticle}, ${JSON.stringify(entry.images)}::jsonb, ${entry.tsv}::tsvector
    from ${stored}
    on conflict (team_id, url) do update set
      host = excluded.host, title = excluded.title, description = excluded.description, content = excluded.content,
      lang = excluded.lang, published_at = excluded.published_at, scraped_at = excluded.scraped_at,
      is_article = excluded.is_article, images = excluded.images, tsv = excluded.tsv
    where s.scraped_at <= excluded.scraped_at`;
}

export interface IndexQuery {
  teamId: string;
  query: string;
  limit: number;
  /** Only pages whose language (its primary subtag) is this. */
  lang?: string;
  from?: Date;
  to?: Date;
  /** Host is one of these or under one. */
  hosts?: string[];
  excludeHosts?: string[];
  pdfOnly?: boolean;
  articlesOnly?: boolean;
}

export interface IndexHit {
  url: string;
  title: string;
  description: string;
  snippet: string;
  date: Date;
  images: { alt: string; src: string }[];
}

const HEADLINE_OPTIONS = 'MaxFragments=2, MaxWords=30, MinWords=10, FragmentDelimiter=" … ", StartSel="", StopSel=""';

/**
 * Ranked pages matching `websearch_to_tsquery` (quotes, `or`, `-word`; never a syntax error) of
 * the query cut into the index's words. `simple` configuration: no stemming, so no language's
 * words are mangled. Snippets come from ts_headline over the top hits only, since it re-reads
 * each page's text.
 */
export async function searchIndex(db: Db, q: IndexQuery): Promise<IndexHit[]> {
  const tsq = sql`websearch_to_tsquery('simple', ${queryText(q.query)})`;
  const onHost = (hosts: string[]) =>
    sql<SqlBool>`(${sql.join(hosts.map((h) => sql`(host = ${h.toLowerCase()} or host like ${'%.' + h.toLowerCase()})`), sql` or `)})`;
  let ranked = db
    .selectFrom('search_documents')
    .select(['url', 'title', 'description', 'content', 'images', sql<Date>`coalesce(published_at, scraped_at)`.as('date'), sql<number>`ts_rank_cd(tsv, ${tsq})`.as('rank')])
    .where('team_id', '=', q.teamId)
    .where(sql<SqlBool>`tsv @@ ${tsq}`);
  if (q.lang) ranked = ranked.where('lang', '=', q.lang.toLowerCase().split('-')[0]!);
  if (q.from) ranked = ranked.where(sql`coalesce(published_at, scraped_at)`, '>=', q.from);
  if (q.to) ranked = ranked.where(sql`coalesce(published_at, scraped_at)`, '<', q.to);
  if (q.hosts?.length) ranked = ranked.where(onHost(q.hosts));
  if (q.excludeHosts?.length) ranked = ranked.where(sql<SqlBool>`not ${onHost(q.excludeHosts)}`);
  if (q.pdfOnly) ranked = ranked.where('url', 'ilike', '%.pdf');
  if (q.articlesOnly) ranked = ranked.where('is_article', '=', true);
  const rows = await db
    .selectFrom(ranked.orderBy('rank', 'desc').orderBy('url').limit(q.limit).as('top'))
    .select(['url', 'title', 'description', 'images', 'date', sql<string>`ts_headline('simple', content, ${tsq}, ${HEADLINE_OPTIONS})`.as('snippet')])
    .orderBy('rank', 'desc')
    .orderBy('url')
    .execute();
  return rows.map((r) => ({ ...r, snippet: r.snippet.replace(/\s+/g, ' ').trim() }));
}

/** Drops index entries of pages scraped before `before` (the retention purge). */
export async function purgeSearchIndex(db: Db, before: Date): Promise<number> {
  const result = await db.deleteFrom('search_documents').where('scraped_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
