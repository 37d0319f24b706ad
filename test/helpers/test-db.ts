/** A fresh database per test file, built by the real migrations and dropped afterwards. */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createDb, type Db } from '../../db/connect.js';
import { migrateToLatest } from '../../db/migrator.js';

export const TEST_PG_SERVER = process.env.TEST_PG_SERVER ?? 'postgres://postgres@127.0.0.1:5432';

export interface TestDb {
  db: Db;
  url: string;
  drop(): Promise<void>;
}

export async function createTestDb(prefix = 'trawl_test'): Promise<TestDb> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  const url = `${TEST_PG_SERVER}/${name}`;
  const db = createDb(url, { maxConnections: 5 });
  const { error } = await migrateToLatest(db);
  if (error) throw error;
  return {
    db,
    url,
    drop: async () => {
      await db.destroy();
      await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: `${TEST_PG_SERVER}/postgres` });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}
