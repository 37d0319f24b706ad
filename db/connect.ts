import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.js';

// bigint counts (COUNT, SUM) arrive as strings by default; our counts fit in a JS number.
pg.types.setTypeParser(20, (v) => Number(v));

export type Db = Kysely<Database>;

export interface CreateDbOptions {
  /** @default 10 */
  maxConnections?: number;
  /** Told when an idle pooled connection dies (Postgres restart, admin termination). @default ignore */
  onIdleConnectionError?: (err: Error) => void;
}

export function createDb(databaseUrl: string, options: CreateDbOptions = {}): Db {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: options.maxConnections ?? 10 });
  // Without a listener, pg rethrows an idle connection's error and the process dies. The pool has
  // already dropped that connection and the next query opens a fresh one, so it is not fatal.
  pool.on('error', options.onIdleConnectionError ?? (() => undefined));
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}
