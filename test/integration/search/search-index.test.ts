/** The built-in search index over a real database: its writes with each stored page, the backfill, the words, team isolation, filters and the purge. */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Migrator } from 'kysely/migration';
import { createDb, type Db } from '../../../db/connect.js';
import type { NewDocument } from '../../../db/schema.js';
import { migrations } from '../../../db/migrations/index.js';
import { migrateToLatest } from '../../../db/migrator.js';
import { down as searchIndexOutOfLine, up as searchIndexInline } from '../../../db/migrations/2026_11_25_000100_search_index_inline.js';
import { acquireSlot } from '../../../db/repositories/concurrency-slots.js';
import { settlePage } from '../../../db/repositories/crawl-pages.js';
import { storeScrapeResult } from '../../../db/repositories/documents.js';
import { purgeSearchIndex, searchIndex } from '../../../db/repositories/search-index.js';
import { INDEXED_TEXT_CHARS, searchEntry } from '../../../lib/search/index-entry.js';
import { tsvectorBinary, tsvectorLiteral, type Weight } from '../../../lib/search/lexemes.js';
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

async function insertJob(db: Db, teamId: string, url: string): Promise<string> {
  const jobId = randomUUID();
  await db
    .insertInto('jobs')
    .values({ id: jobId, team_id: teamId, kind: 'scrape', status: 'scraping', url, options: JSON.stringify({}), workflow_id: `scrape-${jobId}`, updated_at: new Date(), expires_at: new Date(Date.now() + 3_600_000) })
    .execute();
  return jobId;
}

function documentRow(jobId: string, teamId: string, url: string, document: { markdown: string; metadata: Record<string, unknown> }, createdAt: Date): NewDocument {
  const body = JSON.stringify(document);
  return { id: randomUUID(), job_id: jobId, team_id: teamId, url, url_key: randomUUID(), status: 'completed', document: body, size_bytes: body.length, credits_used: 1, created_at: createdAt };
}

/** A page stored as a scrape stores it (storeScrapeResult), with its index entry. */
async function storePage(teamId: string, url: string, markdown: string, metadata: Record<string, unknown> = {}, createdAt = new Date()) {
  const { db } = testDb;
  const jobId = await insertJob(db, teamId, url);
  const document = { markdown, metadata: { sourceURL: url, url, ...metadata } };
  const row = documentRow(jobId, teamId, url, document, createdAt);
  const lease = await acquireSlot(db, teamId, 100, randomUUID(), 60_000);
  const charge = { teamId, jobId, documentId: row.id, chargeKey: `page:${jobId}:${row.url_key}`, reason: 'page', credits: 1, periodCredits: 1_000_000 };
  await storeScrapeResult(db, { document: row, charge, lease: lease!, search: searchEntry(document, url) });
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
      const older = 'https://a.example/older';
      const jobId = await insertJob(db, team, older);
      await db.insertInto('documents').values(documentRow(jobId, team, older, { markdown: 'Tardigrades were found in moss long ago.', metadata: { title: 'Moss', url: older } }, new Date())).execute();
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

  it('finds words however a query punctuates them', async () => {
    await storePage(teamA, 'https://a.example/mail', 'Send an e-mail to help@example.com — see https://docs.example.org/setup/v2.1 or call 555-0100.', { title: 'Contact: support' });
    const urls = async (query: string) => (await searchIndex(testDb.db, { teamId: teamA, query, limit: 10 })).map((h) => h.url);
    for (const query of ['e-mail', 'E-Mail', 'help@example.com', 'docs.example.org', '"setup v2"', 'contact:', '555-0100', 'support -moss', '"call 555"']) {
      expect(await urls(query), query).toEqual(['https://a.example/mail']);
    }
    expect(await urls('e-mail -support')).toEqual([]);
    expect(await urls('"e-mail to help" or nothinglikeit')).toEqual(['https://a.example/mail']);
  });

  it('numbers words as setweight(to_tsvector(title), A) || … || setweight(to_tsvector(text), C) does, for plain words', async () => {
    const fields = { title: 'Water Bears of the moss', description: 'tardigrades survive', content: 'Tardigrades survive space and moss. MOSS again, and again.' };
    const { rows } = await sql<{ same: boolean; ours: string }>`
      select ${tsvectorLiteral([
        { text: fields.title, weight: 'A' },
        { text: fields.description, weight: 'B' },
        { text: fields.content, weight: 'C' },
      ])}::tsvector = (setweight(to_tsvector('simple', ${fields.title}), 'A') || setweight(to_tsvector('simple', ${fields.description}), 'B')
        || setweight(to_tsvector('simple', ${fields.content}), 'C')) as same, ${tsvectorLiteral([{ text: fields.content, weight: 'C' }])}::tsvector::text as ours`.execute(testDb.db);
    expect(rows[0]!.same).toBe(true);
    expect(rows[0]!.ours).toBe("'again':7C,9C 'and':4C,8C 'moss':5C,6C 'space':3C 'survive':2C 'tardigrades':1C");
  });

  it('reads the binary tsvector as the same tsvector as the literal', async () => {
    const cases: { text: string; weight: Weight }[][] = [
      [{ text: 'Water Bears', weight: 'A' }, { text: 'moss', weight: 'B' }, { text: 'Bears survive; naïve 日本語 a\u{20000}b', weight: 'C' }],
      [{ text: `${'w '.repeat(20_000)}last words`, weight: 'C' }],
      [{ text: '', weight: 'A' }],
    ];
    for (const fields of cases) {
      const { rows } = await sql<{ same: boolean }>`select ${tsvectorBinary(fields)}::tsvector = ${tsvectorLiteral(fields)}::tsvector as same`.execute(testDb.db);
      expect(rows[0]!.same, fields[0]!.text.slice(0, 20)).toBe(true);
    }
  });

  it('keeps a binary tsvector within the 1 MB Postgres takes', async () => {
    // 140,000 distinct words are more than a tsvector holds: the words past its limit are left out.
    const many = Array.from({ length: 140_000 }, (_, i) => `w${i.toString(36)}`).join(' ');
    const { rows } = await sql<{ lexemes: number; first: boolean }>`
      select length(v) as lexemes, v @@ 'w0 & w1'::tsquery as first
      from (select ${tsvectorBinary([{ text: 'title', weight: 'A' }, { text: many, weight: 'C' }])}::tsvector as v) t`.execute(testDb.db);
    expect(rows[0]!.lexemes).toBeGreaterThan(70_000);
    expect(rows[0]!.lexemes).toBeLessThan(140_000);
    expect(rows[0]!.first).toBe(true);
  });

  it('indexes a page once: a retried settle of the same page leaves the first entry', async () => {
    const { db } = testDb;
    const url = 'https://a.example/retried';
    const jobId = await insertJob(db, teamA, url);
    const settle = (markdown: string) => {
      const document = { markdown, metadata: { url } };
      const row = { ...documentRow(jobId, teamA, url, document, new Date()), url_key: 'retried' };
      return settlePage(db, { jobId, urlKey: 'retried', status: 'completed' }, row, { search: searchEntry(document, url) });
    };
    expect((await settle('the first attempt stored quokkas')).inserted).toBe(true);
    expect((await settle('a second attempt found wombats')).inserted).toBe(false);
    const urls = async (query: string) => (await searchIndex(db, { teamId: teamA, query, limit: 10 })).map((h) => h.url);
    expect(await urls('quokkas')).toEqual([url]);
    expect(await urls('wombats')).toEqual([]);
  });

  it("keeps the stored Document's markdown as an entry's text, cut where its words are", async () => {
    const { db } = testDb;
    const contentOf = async (url: string) =>
      (await db.selectFrom('search_documents').select('content').where('team_id', '=', teamA).where('url', '=', url).executeTakeFirstOrThrow()).content;
    const long = `${'lorem ipsum '.repeat(INDEXED_TEXT_CHARS / 12)}pastthecut`;
    await storePage(teamA, 'https://a.example/long', long);
    expect(await contentOf('https://a.example/long')).toBe(long.slice(0, INDEXED_TEXT_CHARS));
    expect(await searchIndex(db, { teamId: teamA, query: 'pastthecut', limit: 5 })).toEqual([]);

    const settled = async (url: string, document: { markdown?: string; metadata: Record<string, unknown> }) => {
      const jobId = await insertJob(db, teamA, url);
      const row = { ...documentRow(jobId, teamA, url, { markdown: '', ...document }, new Date()), url_key: url };
      const body = JSON.stringify(document);
      await settlePage(db, { jobId, urlKey: url, status: 'completed' }, { ...row, document: body }, { search: searchEntry(document, url) });
      return contentOf(url);
    };
    const markdown = 'Settled pages keep *their* markdown.';
    expect(await settled('https://a.example/settled', { markdown, metadata: { url: 'https://a.example/settled' } })).toBe(markdown);
    // A Document without markdown (formats without it) is listed by its title, with no text.
    expect(await settled('https://a.example/no-markdown', { metadata: { title: 'Only a title' } })).toBe('');
    expect((await searchIndex(db, { teamId: teamA, query: 'only title', limit: 5 })).map((h) => h.url)).toEqual(['https://a.example/no-markdown']);
  });
});
