import { sql, type Kysely } from 'kysely';

/**
 * Each team's page cache size, kept by a trigger on page_cache, so a store can tell whether the
 * team is over its byte cap without summing all its rows. A trigger rather than the store's own
 * arithmetic: it sees the row version it replaces or deletes, so concurrent stores of one key,
 * the age purge of other teams' rows and the eviction all keep the total exact.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // Migrations run in one transaction: no store slips in between the backfill and the trigger.
  await sql`lock table page_cache in share row exclusive mode`.execute(db);
  await db.schema
    .createTable('page_cache_totals')
    .ifNotExists()
    .addColumn('team_id', 'uuid', (c) => c.primaryKey())
    .addColumn('bytes', 'bigint', (c) => c.notNull())
    .execute();
  await sql`
    create or replace function trawl_page_cache_total() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        insert into page_cache_totals (team_id, bytes) values (new.team_id, new.size_bytes)
        on conflict (team_id) do update set bytes = page_cache_totals.bytes + excluded.bytes;
      elsif tg_op = 'UPDATE' then
        update page_cache_totals set bytes = bytes + new.size_bytes - old.size_bytes where team_id = new.team_id;
      else
        update page_cache_totals set bytes = bytes - old.size_bytes where team_id = old.team_id;
      end if;
      return null;
    end $$`.execute(db);
  await sql`drop trigger if exists page_cache_total on page_cache`.execute(db);
  await sql`
    create trigger page_cache_total after insert or update of size_bytes or delete on page_cache
    for each row execute function trawl_page_cache_total()`.execute(db);
  await sql`insert into page_cache_totals (team_id, bytes) select team_id, sum(size_bytes) from page_cache group by team_id`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger if exists page_cache_total on page_cache`.execute(db);
  await sql`drop function if exists trawl_page_cache_total()`.execute(db);
  await db.schema.dropTable('page_cache_totals').ifExists().execute();
}
