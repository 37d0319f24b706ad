/** The retention purge activity over a real database: expired jobs go with what they own, and leave a tombstone. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserPool } from '../../../browser/browser-pool.js';
import { createPurgeExpiredActivity } from '../../../activities/purge-expired.js';
import { findExpiredJob } from '../../../db/repositories/retention.js';
import { findOrCreateTeam } from '../../../db/repositories/teams.js';
import { createTestDb, type TestDb } from '../../helpers/test-db.js';

let testDb: TestDb;
let teamId: string;
let purgeExpired: ReturnType<typeof createPurgeExpiredActivity>;

beforeAll(async () => {
  testDb = await createTestDb('trawl_retention');
  teamId = (await findOrCreateTeam(testDb.db, `retention-${randomUUID()}`)).id;
  purgeExpired = createPurgeExpiredActivity({ db: testDb.db, browser: undefined as unknown as BrowserPool, allowPrivateNetwork: true });
});

afterAll(async () => {
  await testDb?.drop();
});

/** A crawl job with one document, one frontier page and one media file, expiring at `expiresAt`. */
async function jobWithData(expiresAt: Date): Promise<string> {
  const id = randomUUID();
  const { db } = testDb;
  await db
    .insertInto('jobs')
    .values({
      id,
      team_id: teamId,
      kind: 'crawl',
      status: 'completed',
      url: 'https://example.com/',
      options: JSON.stringify({}),
      workflow_id: `crawl-${id}`,
      updated_at: new Date(),
      expires_at: expiresAt,
    })
    .execute();
  await db
    .insertInto('documents')
    .values({ id: randomUUID(), job_id: id, team_id: teamId, url: 'https://example.com/', url_key: 'k', status: 'completed', document: JSON.stringify({ markdown: 'x' }), size_bytes: 1, credits_used: 1 })
    .execute();
  await db.insertInto('crawl_pages').values({ job_id: id, url_key: 'k', url: 'https://example.com/', depth: 0 }).execute();
  await db.insertInto('media').values({ id: `m-${id}`, job_id: id, team_id: teamId, mime_type: 'image/png', data: Buffer.from('png') }).execute();
  return id;
}

const count = async (table: 'documents' | 'crawl_pages' | 'media', jobId: string) =>
  (await testDb.db.selectFrom(table).select('job_id').where('job_id', '=', jobId).execute()).length;

describe('purgeExpired', () => {
  it('deletes expired jobs with their documents, pages and media, and keeps live ones whole', async () => {
    const expired = await jobWithData(new Date(Date.now() - 60_000));
    const live = await jobWithData(new Date(Date.now() + 3_600_000));
    expect(await findExpiredJob(testDb.db, teamId, expired)).toMatchObject({ kind: 'crawl' });

    const result = await purgeExpired();
    expect(result.jobs).toBeGreaterThanOrEqual(1);

    const jobIds = (await testDb.db.selectFrom('jobs').select('id').execute()).map((j) => j.id);
    expect(jobIds).not.toContain(expired);
    expect(jobIds).toContain(live);
    for (const table of ['documents', 'crawl_pages', 'media'] as const) {
      expect(await count(table, expired)).toBe(0);
      expect(await count(table, live)).toBe(1);
    }
    // The tombstone answers for the purged id, for its own team only.
    expect(await findExpiredJob(testDb.db, teamId, expired)).toMatchObject({ kind: 'crawl' });
    expect(await findExpiredJob(testDb.db, randomUUID(), expired)).toBeUndefined();
    expect(await findExpiredJob(testDb.db, teamId, live)).toBeUndefined();
  });

  it('is idempotent: a second run finds nothing', async () => {
    await jobWithData(new Date(Date.now() - 1000));
    await purgeExpired();
    expect((await purgeExpired()).jobs).toBe(0);
  });
});
