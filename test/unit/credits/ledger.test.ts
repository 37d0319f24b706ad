/**
 * The ledger against a real Postgres: a charge commits with its document or not at all, a retry
 * never charges twice, and concurrent pages never take a team past its plan.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertApiKey } from '../../../db/repositories/api-keys.js';
import { settlePage } from '../../../db/repositories/crawl-pages.js';
import { upsertDocument } from '../../../db/repositories/documents.js';
import { CreditLimitReached, pageChargeKey, type LedgerCharge } from '../../../db/repositories/ledger.js';
import { listCreditPeriods, readPeriodUsage } from '../../../db/repositories/usage.js';
import { createTestDb, documentRow, ledgerTotal, newJob, newTeam, type TestDb } from './fixture.js';

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb('trawl_ledger');
});
afterAll(async () => {
  await t?.drop();
});

function charge(jobId: string, teamId: string, doc: { id: string; url_key: string }, periodCredits = 1_000): LedgerCharge {
  return {
    teamId,
    jobId,
    documentId: doc.id,
    chargeKey: pageChargeKey(jobId, doc.url_key),
    reason: 'page',
    credits: 1,
    periodCredits,
  };
}

async function queuePages(jobId: string, keys: string[]): Promise<void> {
  await t.db
    .insertInto('crawl_pages')
    .values(keys.map((k) => ({ job_id: jobId, url_key: k, url: `https://example.com/${k}`, depth: 0, status: 'scraping' as const })))
    .execute();
}

describe('a synchronous scrape (upsertDocument)', () => {
  it('charges once with its document, attributes the key that started the job, and a retry charges nothing', async () => {
    const team = await newTeam(t.db);
    const jobId = await newJob(t.db, team, 'scrape');
    const first = documentRow(jobId, team.teamId, 'k');
    expect(await upsertDocument(t.db, first, charge(jobId, team.teamId, first))).toEqual({ id: first.id, inserted: true });
    // The retry picked a fresh document id: it gets the first one back and no second charge.
    const retry = documentRow(jobId, team.teamId, 'k');
    expect(await upsertDocument(t.db, retry, charge(jobId, team.teamId, retry))).toEqual({ id: first.id, inserted: false });

    const rows = await t.db.selectFrom('credit_ledger').selectAll().where('job_id', '=', jobId).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ team_id: team.teamId, api_key_id: team.keyId, document_id: first.id, credits: 1 });
    expect((await readPeriodUsage(t.db, team.teamId)).used).toBe(1);
  });

  it('stores no document when the charge is refused', async () => {
    const team = await newTeam(t.db);
    const jobId = await newJob(t.db, team, 'scrape');
    const doc = documentRow(jobId, team.teamId, 'k');
    await expect(upsertDocument(t.db, doc, charge(jobId, team.teamId, doc, 0))).rejects.toBeInstanceOf(CreditLimitReached);
    expect(await t.db.selectFrom('documents').select('id').where('job_id', '=', jobId).execute()).toEqual([]);
    expect(await ledgerTotal(t.db, { teamId: team.teamId })).toBe(0);
  });
});

describe('a crawl page (settlePage)', () => {
  it('settles page, document and charge together, and a retried settle charges nothing', async () => {
    const team = await newTeam(t.db);
    const jobId = await newJob(t.db, team);
    await queuePages(jobId, ['a']);
    const doc = documentRow(jobId, team.teamId, 'a');
    await settlePage(t.db, { jobId, urlKey: 'a', status: 'completed' }, doc, charge(jobId, team.teamId, doc));
    const again = documentRow(jobId, team.teamId, 'a');
    await settlePage(t.db, { jobId, urlKey: 'a', status: 'completed' }, again, charge(jobId, team.teamId, again));

    expect(await ledgerTotal(t.db, { jobId })).toBe(1);
    const stored = await t.db.selectFrom('documents').select(['id', 'credits_used']).where('job_id', '=', jobId).execute();
    expect(stored).toEqual([{ id: doc.id, credits_used: 1 }]);
  });

  it('rolls the page back when the team has no credits left: no document, page still open, nothing charged', async () => {
    const team = await newTeam(t.db);
    const jobId = await newJob(t.db, team);
    await queuePages(jobId, ['a', 'b', 'c']);
    for (const key of ['a', 'b']) {
      const doc = documentRow(jobId, team.teamId, key);
      await settlePage(t.db, { jobId, urlKey: key, status: 'completed' }, doc, charge(jobId, team.teamId, doc, 2));
    }
    const doc = documentRow(jobId, team.teamId, 'c');
    await expect(
      settlePage(t.db, { jobId, urlKey: 'c', status: 'completed' }, doc, charge(jobId, team.teamId, doc, 2)),
    ).rejects.toBeInstanceOf(CreditLimitReached);

    const page = await t.db.selectFrom('crawl_pages').select('status').where('job_id', '=', jobId).where('url_key', '=', 'c').executeTakeFirstOrThrow();
    expect(page.status).toBe('scraping');
    expect(await t.db.selectFrom('documents').select('url_key').where('job_id', '=', jobId).orderBy('url_key').execute()).toEqual([
      { url_key: 'a' },
      { url_key: 'b' },
    ]);
    expect(await ledgerTotal(t.db, { jobId })).toBe(2);
    expect((await readPeriodUsage(t.db, team.teamId)).used).toBe(2);
  });

  it('writes no ledger row for a failed page', async () => {
    const team = await newTeam(t.db);
    const jobId = await newJob(t.db, team);
    await queuePages(jobId, ['x']);
    await settlePage(t.db, { jobId, urlKey: 'x', status: 'failed', errorCode: 'SCRAPE_TIMEOUT' }, {
      ...documentRow(jobId, team.teamId, 'x', 0),
      status: 'failed',
      document: null,
    });
    expect(await ledgerTotal(t.db, { jobId })).toBe(0);
  });
});

describe('under concurrency', () => {
  it('charges exactly the plan when 60 pages settle at once against 20 credits', async () => {
    const team = await newTeam(t.db);
    const jobId = await newJob(t.db, team);
    const keys = Array.from({ length: 60 }, (_, i) => `p${i}`);
    await queuePages(jobId, keys);
    const results = await Promise.allSettled(
      keys.map((key) => {
        const doc = documentRow(jobId, team.teamId, key);
        return settlePage(t.db, { jobId, urlKey: key, status: 'completed' }, doc, charge(jobId, team.teamId, doc, 20));
      }),
    );
    const refused = results.filter((r) => r.status === 'rejected');
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(20);
    expect(refused.every((r) => r.reason instanceof CreditLimitReached)).toBe(true);
    expect(await ledgerTotal(t.db, { jobId })).toBe(20);
    expect((await readPeriodUsage(t.db, team.teamId)).used).toBe(20);
    const docs = await t.db.selectFrom('documents').select('id').where('job_id', '=', jobId).execute();
    expect(docs).toHaveLength(20);
  });
});

describe('usage reads', () => {
  it('sums the ledger per month, and per key when asked', async () => {
    const team = await newTeam(t.db);
    const otherKey = await insertApiKey(t.db, { teamId: team.teamId, keyHash: randomUUID(), keyPrefix: 'fc-second', scopes: null });
    const jobA = await newJob(t.db, team, 'scrape');
    const jobB = await newJob(t.db, { teamId: team.teamId, keyId: otherKey.id }, 'scrape');
    for (const [jobId, key] of [
      [jobA, 'a'],
      [jobB, 'b'],
      [jobB, 'c'],
    ] as const) {
      const doc = documentRow(jobId, team.teamId, key);
      await upsertDocument(t.db, doc, charge(jobId, team.teamId, doc));
    }
    const periods = await listCreditPeriods(t.db, team.teamId, false);
    expect(periods).toHaveLength(1);
    expect(periods[0]!.creditsUsed).toBe(3);
    expect(periods[0]!.periodStart.toISOString()).toBe((await readPeriodUsage(t.db, team.teamId)).periodStart.toISOString());
    const byKey = await listCreditPeriods(t.db, team.teamId, true);
    expect(byKey.map((p) => [p.keyPrefix, p.creditsUsed])).toEqual([
      ['fc-second', 2],
      ['fc-test', 1],
    ]);
  });
});
