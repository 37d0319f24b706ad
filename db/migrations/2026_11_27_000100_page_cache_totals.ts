import { sql, type Kysely } from 'kysely';

/**
 * Each team's page cache size, kept by triggers on page_cache, so a store can tell whether the
 * team is over its byte cap without summing all its rows. Triggers rather than the store's own
 * arithmetic: they see the row versions a statement replaced or deleted, so concurrent stores of
 * one key, the age purge of other teams' rows and the eviction all keep the total exact.
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
  // Per statement, from its transition tables: one write of a team's total however many rows a
  // statement touches (a row trigger would rewrite the same total row once per row, and a purge of
  // thousands of rows would walk thousands of its dead versions).
  await sql`
    create or replace function trawl_page_cache_total() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        insert into page_cache_totals (team_id, bytes)
        select team_id, sum(size_bytes) from new_rows group by team_id
        on conflict (team_id) do update set bytes = page_cache_totals.bytes + excluded.bytes;
      elsif tg_op = 'UPDATE' then
        update page_cache_totals t set bytes = t.bytes + d.bytes
        from (
          select team_id, sum(bytes) as bytes from (
            select team_id, size_bytes::bigint as bytes from new_rows
            union all select team_id, -size_bytes::bigint from old_rows
          ) changed group by team_id
        ) d
        where t.team_id = d.team_id;
      else
        update page_cache_totals t set bytes = t.bytes - d.bytes
        from (select team_id, sum(size_bytes) as bytes from old_rows group by team_id) d
        where t.team_id = d.team_id;
      end if;
      return null;
    end $$`.execute(db);
  // A trigger with transition tables takes one event.
  await sql`
    create trigger page_cache_total_insert after insert on page_cache
    referencing new table as new_rows for each statement execute function trawl_page_cache_total()`.execute(db);
  await sql`
    create trigger page_cache_total_update after update on page_cache
    referencing old table as old_rows new table as new_rows for each statement execute function trawl_page_cache_total()`.execute(db);
  await sql`
    create trigger page_cache_total_delete after delete on page_cache
    referencing old table as old_rows for each statement execute function trawl_page_cache_total()`.execute(db);
  await sql`insert into page_cache_totals (team_id, bytes) select team_id, sum(size_bytes) from page_cache group by team_id`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const event of ['insert', 'update', 'delete']) {
    await sql`drop trigger if exists ${sql.raw(`page_cache_total_${event}`)} on page_cache`.execute(db);
  }
  await sql`drop function if exists trawl_page_cache_total()`.execute(db);
  await db.schema.dropTable('page_cache_totals').ifExists().execute();
}
