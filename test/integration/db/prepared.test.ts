/** Prepared statements (db/prepared.ts) over a real database: which statements are kept, and how they are planned. */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../../db/connect.js';
import { migrateToLatest } from '../../../db/migrator.js';
import { PREPARED } from '../../../db/prepared.js';
import { randomUUID } from 'node:crypto';
import { completedDocumentRow } from '../../../activities/page/document-row.js';
import { claimQueued, settlePage } from '../../../db/repositories/crawl-pages.js';
import { findOrCreateTeam } from '../../../db/repositories/teams.js';
import { createDatabase, dropDatabase, insertRunningJob, testDatabaseUrl } from '../../helpers/test-db.js';

const url = testDatabaseUrl('trawl_prepared');
const opened: Db[] = [];

/** One connection, so each query sees the statements the ones before it prepared. */
function oneConnection(preparedStatements?: boolean, databaseUrl = url): Db {
  const db = createDb(databaseUrl, { maxConnections: 1, preparedStatements });
  opened.push(db);
  return db;
}

async function preparedHere(db: Db) {
  const { rows } = await sql<{ name: string; generic_plans: number; custom_plans: number }>`
    select name, generic_plans::integer, custom_plans::integer from pg_prepared_statements`.execute(db);
  return rows;
}

beforeAll(async () => {
  await createDatabase(url);
});

afterAll(async () => {
  await Promise.all(opened.map((db) => db.destroy()));
  await dropDatabase(url);
});

describe('prepared statements', () => {
  it('keeps a marked statement prepared on its connection, and no other', async () => {
    const db = oneConnection();
    for (let i = 0; i < 3; i++) {
      expect((await sql<{ n: number }>`select ${i}::integer + 1 as n${PREPARED}`.execute(db)).rows[0]!.n).toBe(i + 1);
      await sql`select ${i}::integer as unmarked`.execute(db);
    }
    const kept = await preparedHere(db);
    expect(kept.map((s) => s.name)).toEqual([expect.stringMatching(/^trawl_[0-9a-f]{20}$/)]);
    // The same text is the same statement: three calls, one statement.
    expect(kept[0]!.custom_plans + kept[0]!.generic_plans).toBe(3);
  });

  it('plans every call for its own values, never with a generic plan, whatever options the URL sets', async () => {
    for (const databaseUrl of [url, `${url}?options=${encodeURIComponent('-c statement_timeout=60000')}`]) {
      const db = oneConnection(true, databaseUrl);
      await sql`create table if not exists skewed (id serial primary key, k integer not null)`.execute(db);
      for (let i = 0; i < 8; i++) await sql`select count(*) from skewed where k <= ${i}::integer${PREPARED}`.execute(db);
      const [statement] = await preparedHere(db);
      expect(statement, databaseUrl).toMatchObject({ generic_plans: 0, custom_plans: 8 });
      expect((await sql<{ t: string }>`select current_setting('statement_timeout') as t`.execute(db)).rows[0]!.t, databaseUrl).toBe(databaseUrl === url ? '0' : '1min');
    }
  });

  it("keeps a crawl page's claim and settle prepared: a query builder's mark and a template's", async () => {
    const db = oneConnection();
    const { error } = await migrateToLatest(db);
    if (error) throw error;
    const team = await findOrCreateTeam(db, 'prepared');
    const jobId = await insertRunningJob(db, { teamId: team.id, kind: 'crawl', url: 'https://example.com/' });
    await db.insertInto('crawl_pages').values({ job_id: jobId, url_key: 'a', url: 'https://example.com/a', depth: 0 }).execute();
    const before = (await preparedHere(db)).length;
    expect(await claimQueued(db, jobId, 'claim-1', 1)).toEqual([{ url: 'https://example.com/a', urlKey: 'a', depth: 0 }]);
    expect(await claimQueued(db, jobId, 'claim-2', 1)).toEqual([]);
    expect(await preparedHere(db)).toHaveLength(before + 1);
    const url = 'https://example.com/a';
    const row = completedDocumentRow({ id: randomUUID(), jobId, teamId: team.id, url, urlKey: 'a', document: { markdown: 'A', metadata: { url } }, creditsUsed: 1 });
    expect((await settlePage(db, { jobId, urlKey: 'a', status: 'completed' }, row)).inserted).toBe(true);
    expect(await preparedHere(db)).toHaveLength(before + 2);
  });

  it('prepares nothing when turned off', async () => {
    const db = oneConnection(false);
    await sql`select 1 as one${PREPARED}`.execute(db);
    expect(await preparedHere(db)).toEqual([]);
  });
});
