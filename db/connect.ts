import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.js';

// bigint counts (COUNT, SUM) arrive as strings by default; our counts fit in a JS number.
pg.types.setTypeParser(20, (v) => Number(v));

export type Db = Kysely<Database>;

export function createDb(databaseUrl: string, options: { maxConnections?: number } = {}): Db {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: options.maxConnections ?? 10 });
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}
