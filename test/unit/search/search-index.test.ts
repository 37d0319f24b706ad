/** The built-in search index over a real database: the trigger, the backfill, team isolation, filters and the purge. */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Migrator } from 'kysely';
import { createDb, type Db } from '../../../db/connect.js';
import { migrations } from '../../../db/migrations/index.js';
import { migrateToLatest } from '../../../db/migrator.js';
import { down as searchIndexOutOfLine, up as searchIndexInline } from '../../../db/migrations/2026_11_25_000100_search_index_inline.js';
import { purgeSearchIndex, searchIndex } from '../../../db/repositories/search-index.js';
import { findOrCreateTeam } from '../../../db/repositories/teams.js';
import { createDatabase, createTestDb, dropDatabase, testDatabaseUrl, type TestDb } from '../../helpers/test-db.js';

let testDb: TestDb;
let teamA: string;
let teamB: string;

beforeAll(async () => {
  testDb = await createTestDb('trawl_search_index');
  teamA = (await findOrCreateTeam(testDb.db, `a-${randomUUID()}`)).id;
  teamB = (await findOrCreateTeam(testDb.db, `b-${randomUUID()}`)).id;
});

afterAll(async () => {
  await testDb?.drop();
});

async function storePage(teamId: string, url: string, markdown: string, metadata: Record<string, unknown> = {}, createdAt = new Date(), db: Db = testDb.db) {
  const jobId = randomUUID();
  await db
    .insertInto('jobs')
    .values({ id: jobId, team_id: teamId, kind: 'scrape', status: 'completed', url, options: JSON.stringify({}), workflow_id: `scrape-${jobId}`, updated_at: new Date(), expires_at: new Date(Date.now() + 3_600_000) })
    .execute();
  await db
    .insertInto('documents')
    .values({
      id: randomUUID(),
      job_id: jobId,
      team_id: teamId,
      url,
      url_key: randomUUID(),
      status: 'completed',
      document: JSON.stringify({ markdown, metadata: { sourceURL: url, url, ...metadata } }),
      size_bytes: markdown.length,
      credits_used: 1,
      created_at: createdAt,
    })
    .execute();
}

describe('search index', () => {
  it('indexes stored documents as they are written, per team, with the newest version of a URL', async () => {
    await storePage(teamA, 'https://a.example/bears', 'Tardigrades are called water bears.', { title: 'Water bears', language: 'en-GB' }, new Date(Date.now() - 60_000));
    await storePage(teamA, 'https://a.example/bears', 'Tardigrades survive in space. ![a tardigrade](https://img.example/t.png)', { title: 'Water bears, updated', language: 'en-GB' });
    await storePage(teamB, 'https://b.example/other', 'Nothing about tardigrades here? Tardigrades.', { title: 'Other' });

    const hits = await searchIndex(testDb.db, { teamId: teamA, query: 'tardigrades space', limit: 10 });
    expect(hits).toEqual([
      expect.objectContaining({ url: 'https://a.example/bears', title: 'Water bears, updated', images: [{ alt: 'a tardigrade', src: 'https://img.example/t.png' }] }),
    ]);
    expect(hits[0]!.snippet).toContain('space');
    expect(await searchIndex(testDb.db, { teamId: teamB, query: 'space', limit: 10 })).toEqual([]);
    expect(await searchIndex(testDb.db, { teamId: teamA, query: 'tardigrades', limit: 10, lang: 'en' })).toHaveLength(1);
    expect(await searchIndex(testDb.db, { teamId: teamA, query: 'tardigrades', limit: 10, lang: 'fr' })).toHaveLength(0);
    expect(await searchIndex(testDb.db, { teamId: teamA, query: 'tardigrades', limit: 10, hosts: ['example'] })).toHaveLength(1);
    expect(await searchIndex(testDb.db, { teamId: teamA, query: 'tardigrades', limit: 10, excludeHosts: ['a.example'] })).toHaveLength(0);
    // websearch syntax never raises: unbalanced quotes and operators are read as words.
    await expect(searchIndex(testDb.db, { teamId: teamA, query: '"unbalanced -- or & |', limit: 5 })).resolves.toEqual([]);
  });

  it('covers documents stored before the index: the migrations replay them', async () => {
    // A database as it was before the index, with a page in it, then migrated to the latest.
    const url = testDatabaseUrl('trawl_search_before');
    await createDatabase(url);
    const db = createDb(url, { maxConnections: 2 });
    try {
      const before = new Migrator({ db, provider: { getMigrations: async () => migrations }, allowUnorderedMigrations: true });
      expect((await before.migrateTo('2026_11_25_000020_change_snapshot_extraction')).error).toBeUndefined();
      const team = (await findOrCreateTeam(db, 'before-the-index')).id;
      await storePage(team, 'https://a.example/older', 'Tardigrades were found in moss long ago.', { title: 'Moss' }, new Date(), db);
      expect((await migrateToLatest(db)).error).toBeUndefined();
      expect((await searchIndex(db, { teamId: team, query: 'moss', limit: 10 })).map((h) => h.url)).toEqual(['https://a.example/older']);
    } finally {
      await db.destroy();
      await dropDatabase(url);
    }
  });

  it('keeps tsvectors in their rows, including those written before, without changing the answers', async () => {
    const tsvStorage = async () =>
      (await sql<{ storage: string }>`select attstorage as storage from pg_attribute where attrelid = 'search_documents'::regclass and attname = 'tsv'`.execute(testDb.db)).rows[0]!.storage;
    expect(await tsvStorage()).toBe('m');
    await searchIndexOutOfLine(testDb.db);
    expect(await tsvStorage()).toBe('x');
    const before = await searchIndex(testDb.db, { teamId: teamA, query: 'tardigrades', limit: 10 });
    await searchIndexInline(testDb.db);
    await searchIndexInline(testDb.db);
    expect(await tsvStorage()).toBe('m');
    expect(await searchIndex(testDb.db, { teamId: teamA, query: 'tardigrades', limit: 10 })).toEqual(before);
    expect(before).toHaveLength(1);
  });

  it('forgets pages scraped before the retention cut-off', async () => {
    await storePage(teamB, 'https://b.example/old', 'ancient tardigrade fossil', {}, new Date(Date.now() - 10 * 86_400_000));
    expect(await searchIndex(testDb.db, { teamId: teamB, query: 'fossil', limit: 5 })).toHaveLength(1);
    expect(await purgeSearchIndex(testDb.db, new Date(Date.now() - 86_400_000))).toBe(1);
    expect(await searchIndex(testDb.db, { teamId: teamB, query: 'fossil', limit: 5 })).toHaveLength(0);
  });
});
