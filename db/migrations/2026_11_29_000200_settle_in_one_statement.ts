import { sql, type Kysely } from 'kysely';

/**
 * What a statement that stores a page and charges for it raises when the plan refuses the charge
 * (chargeMade in db/repositories/ledger.ts): failing, the statement takes everything it stored
 * with it, so a crawl page settles in one round trip. Its own SQLSTATE lets the caller tell a
 * refusal from any other error.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create or replace function trawl_credit_limit_reached() returns boolean language plpgsql as $$
    begin
      raise exception 'credit limit reached' using errcode = 'TRW01';
    end $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop function if exists trawl_credit_limit_reached()`.execute(db);
}
