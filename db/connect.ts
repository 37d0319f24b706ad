import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { PLAN_EACH_CALL, PreparingClient } from './prepared.js';
import type { Database } from './schema.js';

// bigint counts (COUNT, SUM) arrive as strings by default; our counts fit in a JS number.
pg.types.setTypeParser(20, (v) => Number(v));

export type Db = Kysely<Database>;

export interface CreateDbOptions {
  /** @default 10 */
  maxConnections?: number;
  /** Told when an idle pooled connection dies (Postgres restart, admin termination). @default ignore */
  onIdleConnectionError?: (err: Error) => void;
  /** Statements marked PREPARED (prepared.ts) become named prepared statements. @default true */
  preparedStatements?: boolean;
}

export function createDb(databaseUrl: string, options: CreateDbOptions = {}): Db {
  const prepared = options.preparedStatements !== false;
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: options.maxConnections ?? 10,
    ...(prepared ? { Client: PreparingClient } : {}),
  });
  // Without a listener, pg rethrows an idle connection's error and the process dies. The pool has
  // already dropped that connection and the next query opens a fresh one, so it is not fatal.
  const onError = options.onIdleConnectionError ?? (() => undefined);
  pool.on('error', onError);
  // A checked-out connection is the pool's no longer: if Postgres drops it between two queries of
  // a transaction, pg emits 'error' on the client itself, which would kill the process. The query
  // in progress fails on its own, and pg-pool discards the dead client when it is released.
  pool.on('connect', (client) => {
    client.on('error', onError);
    // Queued before anything the pool's borrower sends on this connection.
    if (prepared) client.query(PLAN_EACH_CALL).catch(onError);
  });
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}
