import { sql, type Kysely } from 'kysely';

/**
 * The built-in search index: the newest stored version of each (team, URL), kept by a trigger on
 * documents, so every path that stores a page (scrape, crawl, batch, extract) feeds it without
 * knowing, and the backfill below covers pages stored before it existed.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('search_documents')
    .ifNotExists()
    .addColumn('team_id', 'uuid', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    // Capped: a tsvector must stay under 1 MB, and ts_headline re-reads this text.
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('lang', 'text')
    .addColumn('published_at', 'timestamptz')
    .addColumn('scraped_at', 'timestamptz', (c) => c.notNull())
    .addColumn('is_article', 'boolean', (c) => c.notNull())
    .addColumn('images', 'jsonb', (c) => c.notNull())
    .addColumn('tsv', sql`tsvector`, (c) =>
      c.generatedAlwaysAs(
        sql`setweight(to_tsvector('simple', title), 'A') || setweight(to_tsvector('simple', description), 'B') || setweight(to_tsvector('simple', content), 'C')`,
      ).stored(),
    )
    .addPrimaryKeyConstraint('search_documents_pkey', ['team_id', 'url'])
    .execute();
  await db.schema.createIndex('search_documents_tsv_idx').ifNotExists().on('search_documents').using('gin').column('tsv').execute();
  await db.schema.createIndex('search_documents_team_time_idx').ifNotExists().on('search_documents').columns(['team_id', 'scraped_at']).execute();

  await sql`
    create or replace function trawl_search_index_document() returns trigger language plpgsql as $$
    declare
      doc jsonb := new.document;
      meta jsonb := coalesce(new.document -> 'metadata', '{}'::jsonb);
      page_url text := coalesce(meta ->> 'url', meta ->> 'sourceURL', new.url);
      markdown text := left(coalesce(doc ->> 'markdown', ''), 200000);
      published timestamptz;
    begin
      if new.status <> 'completed' or doc is null or page_url !~* '^https?://' then
        return new;
      end if;
      begin
        published := coalesce(meta ->> 'publishedTime', meta ->> 'dcDate', meta ->> 'dcTermsCreated')::timestamptz;
      exception when others then
        published := null;
      end;
      insert into search_documents as s (team_id, url, host, title, description, content, lang, published_at, scraped_at, is_article, images)
      values (
        new.team_id,
        page_url,
        lower(substring(page_url from '^https?://(?:[^@/]*@)?([^/:?#]+)')),
        left(coalesce(meta ->> 'title', meta ->> 'ogTitle', ''), 1000),
        left(coalesce(meta ->> 'description', meta ->> 'ogDescription', ''), 4000),
        markdown,
        lower(split_part(coalesce(meta ->> 'language', ''), '-', 1)),
        published,
        new.created_at,
        coalesce(meta ->> 'ogType', '') = 'article' or meta ? 'publishedTime',
        coalesce((
          select jsonb_agg(distinct jsonb_build_object('alt', m[1], 'src', m[2]))
          from regexp_matches(markdown, '!\\[([^\\]]*)\\]\\((https?://[^)\\s]+)', 'g') as m
        ), '[]'::jsonb)
      )
      on conflict (team_id, url) do update set
        host = excluded.host, title = excluded.title, description = excluded.description, content = excluded.content,
        lang = excluded.lang, published_at = excluded.published_at, scraped_at = excluded.scraped_at,
        is_article = excluded.is_article, images = excluded.images
      where s.scraped_at <= excluded.scraped_at;
      return new;
    end $$`.execute(db);
  await sql`drop trigger if exists search_index_document on documents`.execute(db);
  await sql`
    create trigger search_index_document after insert or update of status, document on documents
    for each row execute function trawl_search_index_document()`.execute(db);

  // Pages stored before the index: replay them through the trigger (the newest version of a URL wins).
  await sql`update documents set status = status where status = 'completed' and document is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger if exists search_index_document on documents`.execute(db);
  await sql`drop function if exists trawl_search_index_document()`.execute(db);
  await db.schema.dropTable('search_documents').ifExists().execute();
}
