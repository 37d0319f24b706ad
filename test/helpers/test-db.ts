/** A fresh database per test file (or per e2e run), built by the real migrations and dropped afterwards. */
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { createDb, type Db } from '../../db/connect.js';
import { migrateToLatest } from '../../db/migrator.js';

export const TEST_PG_SERVER = process.env.TEST_PG_SERVER ?? 'postgres://postgres@127.0.0.1:5432';

export interface TestDb {
  db: Db;
  url: string;
  drop(): Promise<void>;
}

/** A database URL with a unique name; the database itself is created by whoever uses it. */
export function testDatabaseUrl(prefix = 'trawl_test'): string {
  return `${TEST_PG_SERVER}/${prefix}_${randomBytes(5).toString('hex')}`;
}

/** An empty database at `url` (from testDatabaseUrl), for a test that migrates it itself. */
export async function createDatabase(url: string): Promise<void> {
  await adminQuery(`CREATE DATABASE ${databaseName(url)}`);
}

export async function createTestDb(prefix = 'trawl_test'): Promise<TestDb> {
  const url = testDatabaseUrl(prefix);
  await createDatabase(url);
  const db = createDb(url, { maxConnections: 5 });
  const { error } = await migrateToLatest(db);
  if (error) throw error;
  return {
    db,
    url,
    drop: async () => {
      await db.destroy();
      await dropDatabase(url);
    },
  };
}

export async function dropDatabase(url: string): Promise<void> {
  await adminQuery(`DROP DATABASE IF EXISTS ${databaseName(url)} WITH (FORCE)`);
}

function databaseName(url: string): string {
  return new URL(url).pathname.slice(1);
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

/** A running job of `kind` for `teamId`, as the API would have inserted it; returns its id. */
export async function insertRunningJob(db: Db, fields: { teamId: string; kind: 'scrape' | 'crawl' | 'batch_scrape' | 'browser'; url: string }): Promise<string> {
  const id = randomUUID();
  await db
    .insertInto('jobs')
    .values({
      id,
      team_id: fields.teamId,
      kind: fields.kind,
      status: 'scraping',
      url: fields.url,
      options: JSON.stringify({}),
      workflow_id: `${fields.kind}-${id}`,
      updated_at: new Date(),
      expires_at: new Date(Date.now() + 86_400_000),
    })
    .execute();
  return id;
}
