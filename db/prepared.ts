/**
 * Named prepared statements for the few statements every crawled page runs. Postgres parses and
 * analyses an unnamed statement on every call; the statement that stores a page (page-store.ts)
 * has a dozen CTEs. A named one is parsed and analysed once per connection: in the page-store
 * bench, Postgres's CPU per stored page went from 1.67–2.02 ms to 1.50–1.60 ms.
 *
 * Opt-in, by a mark at the end of the statement's text (`sql` templates end with
 * `${PREPARED}`, query builders `.modifyEnd(PREPARED)`), not every statement: a statement's
 * text varies with its options and list lengths, and each distinct text would stay prepared on
 * the connection. The marked statements have a handful of texts each. Prepared statements need a
 * connection of one's own for a session: behind a transaction-mode pooler older than PgBouncer
 * 1.21, set DATABASE_PREPARED_STATEMENTS=false.
 */
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';

const MARK = '/* prepared */';

/** Ends a statement Postgres should keep prepared on each connection. */
export const PREPARED = sql.raw(` ${MARK}`);

/**
 * Run on each of the pool's connections before its first statement: each call is still planned
 * for its own values. A generic plan, which Postgres switches to after five calls when it looks no
 * costlier, was planned on a fresh database's empty tables and kept: it found an earlier attempt's
 * Document by the job alone and purged expired cache copies by a sequential scan, so storing a
 * page grew slower with every page stored. A statement, not a startup option: a DATABASE_URL's
 * own `options` would replace that.
 */
export const PLAN_EACH_CALL = 'set plan_cache_mode = force_custom_plan';

const names = new Map<string, string>();

function statementName(text: string): string {
  let name = names.get(text);
  if (!name) {
    name = `trawl_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    names.set(text, name);
  }
  return name;
}

/** A pg client that sends marked statements as named prepared statements. */
export class PreparingClient extends pg.Client {
  // Only kysely's query(text, values) is rewritten; an override must accept pg's dozen overloads.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the overloads' union, passed on untouched.
  override query(...args: any[]): any {
    const [text, values] = args as [unknown, unknown];
    if (typeof text === 'string' && text.endsWith(MARK) && Array.isArray(values)) {
      return super.query({ name: statementName(text), text, values }, ...args.slice(2));
    }
    return (super.query as (...a: unknown[]) => unknown)(...args);
  }
}
