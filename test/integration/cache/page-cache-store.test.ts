/**
 * db/repositories/page-cache.ts against a real Postgres: a store replaces the key's copy and
 * applies both bounds (age for every team, bytes per team, oldest first), judging the byte cap by
 * the team's total that the page_cache triggers keep. Both writers of copies are held to it: a
 * synchronous scrape's store and a crawl page's settle, each of which makes the copy in the
 * statement that stores its page.
 */
import { randomUUID } from 'node:crypto';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../db/connect.js';
import { acquireSlot } from '../../../db/repositories/concurrency-slots.js';
import { settlePage } from '../../../db/repositories/crawl-pages.js';
import { storeScrapeResult } from '../../../db/repositories/documents.js';
import { pageChargeKey } from '../../../db/repositories/ledger.js';
import {
  findCachedPage,
  PAGE_CACHE_EVICT_TO_BYTES,
  PAGE_CACHE_RETENTION_MS,
  PAGE_CACHE_TEAM_BYTES,
  type CacheCopy,
} from '../../../db/repositories/page-cache.js';
import { findOrCreateTeam } from '../../../db/repositories/teams.js';
import type { Database } from '../../../db/schema.js';
import { endsOrWaitsOnLock } from '../../helpers/lock-wait.js';
import { createTestDb, type TestDb } from '../../helpers/test-db.js';

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb('trawl_page_cache');
});
afterAll(async () => {
  await t?.drop();
});

const DAY_MS = 24 * 60 * 60 * 1000;

async function newTeamId(): Promise<string> {
  return (await findOrCreateTeam(t.db, `team-${randomUUID()}`)).id;
}

/** A row as an earlier store left it; `sizeBytes` is what the byte cap counts. */
async function seed(teamId: string, key: string, ageMs: number, sizeBytes = 10): Promise<void> {
  await t.db
    .insertInto('page_cache')
    .values({
      team_id: teamId,
      cache_key: key,
      url: `https://example.com/${key}`,
      document: JSON.stringify({ markdown: key }),
      outcome: JSON.stringify({ statusCode: 200 }),
      size_bytes: sizeBytes,
      cached_at: new Date(Date.now() - ageMs),
    })
    .execute();
}

/** A job of its own, and its Document for the page `copy` is of: the copy's JSON, with the markdown when the copy says the Document holds it. */
async function jobWithDocument(db: Db, kind: 'crawl' | 'scrape', copy: CacheCopy) {
  const jobId = randomUUID();
  await db
    .insertInto('jobs')
    .values({ id: jobId, team_id: copy.teamId, kind, status: 'scraping', url: copy.url, options: '{}', workflow_id: `${kind}-${jobId}`, updated_at: new Date(), expires_at: new Date(Date.now() + DAY_MS) })
    .execute();
  const document = { id: randomUUID(), job_id: jobId, team_id: copy.teamId, url: copy.url, url_key: copy.key, status: 'completed' as const, document: documentOf(copy), size_bytes: 1, credits_used: 0 };
  return { jobId, document };
}

function documentOf(copy: CacheCopy): string {
  return copy.markdownInDocument ? JSON.stringify({ ...JSON.parse(copy.document), markdown: copy.markdown }) : copy.document;
}

/** A crawl page of a job of its own, settled with `copy`. */
async function settleWithCopy(db: Db, copy: CacheCopy): Promise<void> {
  const { jobId, document } = await jobWithDocument(db, 'crawl', copy);
  await settlePage(db, { jobId, urlKey: copy.key, status: 'completed' }, document, { cacheCopy: copy });
}

/** A synchronous scrape of a job of its own, stored with `copy`; free, so no plan is involved. */
async function storeScrapeWithCopy(db: Db, copy: CacheCopy): Promise<void> {
  const { jobId, document } = await jobWithDocument(db, 'scrape', copy);
  const lease = await acquireSlot(db, copy.teamId, 1_000, randomUUID(), 30_000);
  if (!lease) throw new Error('no free slot');
  const charge = { teamId: copy.teamId, jobId, documentId: document.id, chargeKey: pageChargeKey(jobId, copy.key), reason: 'page' as const, credits: 0, periodCredits: 0 };
  await storeScrapeResult(db, { document, charge, lease, cacheCopy: copy });
}

const writers: [string, (db: Db, copy: CacheCopy) => Promise<void>][] = [
  ["a synchronous scrape's store", storeScrapeWithCopy],
  ["a crawl page's settle", settleWithCopy],
];
let write = writers[0]![1];

function store(teamId: string, key: string, markdown: string): Promise<void> {
  return write(t.db, {
    teamId,
    key,
    url: `https://example.com/${key}`,
    document: JSON.stringify({ markdown }),
    outcome: JSON.stringify({ statusCode: 200 }),
    cachedAt: new Date(),
  });
}

/** The kept total next to the real sum, for each of `teamIds`. */
async function totalsOf(...teamIds: string[]): Promise<{ kept: number; actual: number }[]> {
  return Promise.all(
    teamIds.map(async (teamId) => {
      const kept = await t.db.selectFrom('page_cache_totals').select('bytes').where('team_id', '=', teamId).executeTakeFirst();
      const actual = await t.db
        .selectFrom('page_cache')
        .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('size_bytes'), eb.lit(0)).as('sum'))
        .where('team_id', '=', teamId)
        .executeTakeFirstOrThrow();
      return { kept: Number(kept?.bytes ?? 0), actual: Number(actual.sum) };
    }),
  );
}

async function keysOf(teamId: string): Promise<string[]> {
  const rows = await t.db.selectFrom('page_cache').select('cache_key').where('team_id', '=', teamId).orderBy('cache_key').execute();
  return rows.map((r) => r.cache_key);
}

describe.each(writers)('%s', (_, writer) => {
  beforeAll(() => {
    write = writer;
  });

  it('replaces the copy under the same key', async () => {
    const teamId = await newTeamId();
    await store(teamId, 'a', 'first');
    await store(teamId, 'a', 'second');
    expect(await keysOf(teamId)).toEqual(['a']);
    expect((await findCachedPage(t.db, teamId, 'a', DAY_MS))?.document).toEqual({ markdown: 'second' });
  });

  it('deletes copies past the retention, of every team, but not younger ones', async () => {
    const [teamId, otherTeamId] = [await newTeamId(), await newTeamId()];
    await seed(teamId, 'old', PAGE_CACHE_RETENTION_MS + DAY_MS);
    await seed(teamId, 'recent', DAY_MS);
    await seed(otherTeamId, 'old', PAGE_CACHE_RETENTION_MS + DAY_MS);
    await store(teamId, 'new', 'fresh');
    expect(await keysOf(teamId)).toEqual(['new', 'recent']);
    expect(await keysOf(otherTeamId)).toEqual([]);
  });

  it('leaves an expired copy that another transaction holds to it, instead of waiting for it', async () => {
    const [teamId, otherTeamId] = [await newTeamId(), await newTeamId()];
    await seed(otherTeamId, 'held', PAGE_CACHE_RETENTION_MS + DAY_MS);
    let stored: Promise<void> | undefined;
    await t.db.transaction().execute(async (trx) => {
      await trx.selectFrom('page_cache').select('cache_key').where('team_id', '=', otherTeamId).forUpdate().execute();
      // The store either ends or waits on the held row, which stays locked until it does one of them.
      stored = store(teamId, 'new', 'fresh');
      const first = await endsOrWaitsOnLock(t.db, stored);
      expect(first).toBe('ended');
    });
    await stored;
    expect(await keysOf(otherTeamId)).toEqual(['held']);
    await store(teamId, 'later', 'fresh');
    expect(await keysOf(otherTeamId)).toEqual([]);
  });

  it('evicts the team’s oldest copies past its byte cap, counting the stored copy, and no other team’s', async () => {
    const [teamId, otherTeamId] = [await newTeamId(), await newTeamId()];
    const third = Math.floor(PAGE_CACHE_TEAM_BYTES / 3);
    // Newest first: the new copy, 'c' and 'b' fit under the cap; 'a' no longer does.
    await seed(teamId, 'a', 4 * DAY_MS, third);
    await seed(teamId, 'b', 2 * DAY_MS, third);
    await seed(teamId, 'c', DAY_MS, third);
    await seed(otherTeamId, 'x', 4 * DAY_MS, PAGE_CACHE_TEAM_BYTES);
    await store(teamId, 'new', 'fresh');
    expect(await keysOf(teamId)).toEqual(['b', 'c', 'new']);
    expect(await keysOf(otherTeamId)).toEqual(['x']);
  });

  it('does not count the replaced copy’s old size against the cap', async () => {
    const teamId = await newTeamId();
    await seed(teamId, 'big', DAY_MS, PAGE_CACHE_TEAM_BYTES - 100);
    await seed(teamId, 'older', 2 * DAY_MS, 100);
    await store(teamId, 'big', 'now small');
    expect(await keysOf(teamId)).toEqual(['big', 'older']);
  });

  it('keeps a store that leaves the team just under its cap, evicting nothing', async () => {
    const teamId = await newTeamId();
    const half = Math.floor(PAGE_CACHE_TEAM_BYTES / 2);
    await seed(teamId, 'a', 2 * DAY_MS, half);
    await seed(teamId, 'b', DAY_MS, half - 1_000);
    await store(teamId, 'new', 'fresh');
    expect(await keysOf(teamId)).toEqual(['a', 'b', 'new']);
  });

  it('evicts down to nine tenths of the cap, so the stores after it evict nothing', async () => {
    const teamId = await newTeamId();
    // Ten copies of a little over a twentieth of the cap each, the oldest first, and one that fills the cap but 10 bytes.
    const size = Math.ceil(PAGE_CACHE_TEAM_BYTES / 20) + 1_000;
    for (let i = 0; i < 10; i++) await seed(teamId, `old-${i}`, ((20 - i) * DAY_MS) / 10, size);
    await seed(teamId, 'recent', DAY_MS / 20, PAGE_CACHE_TEAM_BYTES - 10 * size - 10);
    await store(teamId, 'passes', 'a copy that passes the cap');
    // Two of them leave the team under nine tenths; one would have left it under the cap.
    expect(await keysOf(teamId)).not.toContain('old-0');
    expect(await keysOf(teamId)).not.toContain('old-1');
    expect(await keysOf(teamId)).toContain('old-2');
    expect((await totalsOf(teamId))[0]!.kept).toBeLessThanOrEqual(PAGE_CACHE_EVICT_TO_BYTES);
    await store(teamId, 'next', 'fits under the cap again');
    expect((await keysOf(teamId)).length).toBe(11);
  });

  it('keeps each team’s total equal to its rows through stores, replacements, the age purge and eviction', async () => {
    const [teamId, otherTeamId] = [await newTeamId(), await newTeamId()];
    const third = Math.floor(PAGE_CACHE_TEAM_BYTES / 3);
    await seed(otherTeamId, 'old', PAGE_CACHE_RETENTION_MS + DAY_MS, 500);
    await seed(otherTeamId, 'kept', DAY_MS, 700);
    await seed(teamId, 'a', 3 * DAY_MS, third);
    await seed(teamId, 'b', 2 * DAY_MS, third);
    await store(teamId, 'c', 'first');
    await store(teamId, 'c', 'a longer second copy');
    // Concurrent replacements of one key: each must take out the size of the copy it replaced.
    await Promise.all(['x', 'xx', 'xxx', 'xxxx'].map((markdown) => store(teamId, 'd', markdown)));
    await seed(teamId, 'e', DAY_MS, third);
    await store(teamId, 'f', 'evicts a');
    expect(await keysOf(teamId)).toEqual(['b', 'c', 'd', 'e', 'f']);
    expect(await keysOf(otherTeamId)).toEqual(['kept']);
    for (const { kept, actual } of await totalsOf(teamId, otherTeamId)) expect(kept).toBe(actual);
    expect((await totalsOf(otherTeamId))[0]!.kept).toBe(700);
  });

  it('keeps the totals when one statement writes many rows of several teams', async () => {
    const [teamId, otherTeamId] = [await newTeamId(), await newTeamId()];
    const old = new Date(Date.now() - PAGE_CACHE_RETENTION_MS - DAY_MS);
    await t.db
      .insertInto('page_cache')
      .values(
        Array.from({ length: 300 }, (_, i) => ({
          team_id: i % 2 === 0 ? teamId : otherTeamId,
          cache_key: `bulk-${i}`,
          url: `https://example.com/${i}`,
          document: JSON.stringify({ markdown: String(i) }),
          outcome: JSON.stringify({ statusCode: 200 }),
          size_bytes: 1_000 + i,
          cached_at: i < 200 ? old : new Date(),
        })),
      )
      .execute();
    for (const { kept, actual } of await totalsOf(teamId, otherTeamId)) expect(kept).toBe(actual);
    await t.db.updateTable('page_cache').set({ size_bytes: 7 }).where('team_id', '=', otherTeamId).where('cache_key', 'like', 'bulk-2%').execute();
    // The age purge of this store deletes 200 rows of both teams at once.
    await store(teamId, 'new', 'fresh');
    expect((await keysOf(otherTeamId)).length).toBe(50);
    for (const { kept, actual } of await totalsOf(teamId, otherTeamId)) expect(kept).toBe(actual);
  });
});

/** A second connection to the test database that hands `sent` the parameters of every statement it runs. */
function watched(sent: unknown[]): Db {
  return new Kysely<Database>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: t.url, max: 1 }) }),
    log: (event) => {
      sent.push(...event.query.parameters);
    },
  });
}

describe.each(writers)('%s, with a copy of a page that has markdown', (_, writer) => {
  const marker = 'markdown-marker-7f3a';
  const markdown = `# Page ${marker}\n\n${'A line of "text" the copy may share with its Document.\n'.repeat(50)}`;
  const expected = { markdown, metadata: { title: 'Page' } };

  function copyOf(teamId: string, key: string, markdownInDocument: boolean): CacheCopy {
    return {
      teamId,
      key,
      url: `https://example.com/${key}`,
      document: JSON.stringify({ metadata: { title: 'Page' } }),
      markdown,
      markdownInDocument,
      outcome: JSON.stringify({ statusCode: 200 }),
      cachedAt: new Date(),
    };
  }

  it('copies the markdown from the Document it stores instead of sending it a second time', async () => {
    const teamId = await newTeamId();
    const sent: unknown[] = [];
    const db = watched(sent);
    await writer(db, copyOf(teamId, 'shared', true)).finally(() => db.destroy());
    expect(sent.filter((value) => typeof value === 'string' && value.includes(marker))).toHaveLength(1);
    expect((await findCachedPage(t.db, teamId, 'shared', DAY_MS))?.document).toEqual(expected);
  });

  it('sends the markdown with the copy when the Document does not hold it', async () => {
    const teamId = await newTeamId();
    await writer(t.db, copyOf(teamId, 'apart', false));
    expect((await findCachedPage(t.db, teamId, 'apart', DAY_MS))?.document).toEqual(expected);
  });

  it('counts the markdown in the copy’s size', async () => {
    const teamId = await newTeamId();
    await writer(t.db, copyOf(teamId, 'sized', true));
    expect((await totalsOf(teamId))[0]!.kept).toBeGreaterThan(Buffer.byteLength(markdown));
  });
});

it('a settle that stores no Document, because an earlier attempt did, keeps that attempt’s copy', async () => {
  const teamId = await newTeamId();
  const first: CacheCopy = {
    teamId,
    key: 'replayed',
    url: 'https://example.com/replayed',
    document: JSON.stringify({ metadata: {} }),
    markdown: 'first attempt',
    markdownInDocument: true,
    outcome: JSON.stringify({ statusCode: 200 }),
    cachedAt: new Date(Date.now() - 60_000),
  };
  const { jobId, document } = await jobWithDocument(t.db, 'crawl', first);
  await settlePage(t.db, { jobId, urlKey: first.key, status: 'completed' }, document, { cacheCopy: first });
  const again = { ...first, markdown: 'second attempt', cachedAt: new Date() };
  const replay = { ...document, id: randomUUID(), document: documentOf(again) };
  expect(await settlePage(t.db, { jobId, urlKey: first.key, status: 'completed' }, replay, { cacheCopy: again })).toEqual({ documentId: document.id, inserted: false });
  const cached = await findCachedPage(t.db, teamId, 'replayed', DAY_MS);
  expect(cached?.document).toEqual({ metadata: {}, markdown: 'first attempt' });
  expect(cached?.cachedAt).toEqual(first.cachedAt);
});
