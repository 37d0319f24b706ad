/**
 * The ledger against a real Postgres: a charge commits with its document or not at all, a retry
 * never charges twice, and concurrent pages never take a team past its plan. A single scrape's
 * result also completes its job and frees its concurrency slot in the same transaction.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { listen } from '../../../db/listen.js';
import { insertApiKey } from '../../../db/repositories/api-keys.js';
import { lockEnqueues, settlePage } from '../../../db/repositories/crawl-pages.js';
import { acquireSlot, countActiveSlots, type SlotLease } from '../../../db/repositories/concurrency-slots.js';
import { SCRAPE_STORED_CHANNEL, storeScrapeResult } from '../../../db/repositories/documents.js';
import { CreditLimitReached, pageChargeKey, type LedgerCharge } from '../../../db/repositories/ledger.js';
import { saveTeamPlan } from '../../../db/repositories/plans.js';
import { listCreditPeriods, readPeriodUsage, readTeamStanding } from '../../../db/repositories/usage.js';
import { DEFAULT_PLAN, planColumns, resolvePlan } from '../../../lib/plans.js';
import { endsOrWaitsOnLock, waitForLockWait } from '../../helpers/lock-wait.js';
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

async function leaseSlot(teamId: string): Promise<SlotLease> {
  const lease = await acquireSlot(t.db, teamId, 10, randomUUID(), 30_000);
  if (!lease) throw new Error('no free slot');
  return lease;
}

async function jobStatus(jobId: string): Promise<string> {
  return (await t.db.selectFrom('jobs').select('status').where('id', '=', jobId).executeTakeFirstOrThrow()).status;
}

async function queuePages(jobId: string, keys: string[]): Promise<void> {
  await t.db
    .insertInto('crawl_pages')
    .values(keys.map((k) => ({ job_id: jobId, url_key: k, url: `https://example.com/${k}`, depth: 0, status: 'scraping' as const })))
    .execute();
}

describe('a synchronous scrape (storeScrapeResult)', () => {
  it('charges once with its document, completes the job, frees the slot, and a retry charges nothing', async () => {
    const team = await newTeam(t.db);
    const jobId = await newJob(t.db, team, 'scrape');
    const first = documentRow(jobId, team.teamId, 'k');
    const lease = await leaseSlot(team.teamId);
    expect(await storeScrapeResult(t.db, { document: first, charge: charge(jobId, team.teamId, first), lease })).toEqual({
      id: first.id,
      inserted: true,
    });
    expect(await jobStatus(jobId)).toBe('completed');
    expect(await countActiveSlots(t.db, team.teamId)).toBe(0);
    // The retry picked a fresh document id: it gets the first one back and no second charge.
    const retry = documentRow(jobId, team.teamId, 'k');
    const retryLease = await leaseSlot(team.teamId);
    expect(
      await storeScrapeResult(t.db, { document: retry, charge: charge(jobId, team.teamId, retry), lease: retryLease }),
    ).toEqual({ id: first.id, inserted: false });
    expect(await countActiveSlots(t.db, team.teamId)).toBe(0);

    const rows = await t.db.selectFrom('credit_ledger').selectAll().where('job_id', '=', jobId).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ team_id: team.teamId, api_key_id: team.keyId, document_id: first.id, credits: 1 });
    expect((await readPeriodUsage(t.db, team.teamId)).used).toBe(1);
  });

  it('stores nothing when the charge is refused: no document, the job still running, the slot still held', async () => {
    const team = await newTeam(t.db);
    const jobId = await newJob(t.db, team, 'scrape');
    const doc = documentRow(jobId, team.teamId, 'k');
    const lease = await leaseSlot(team.teamId);
    await expect(
      storeScrapeResult(t.db, { document: doc, charge: charge(jobId, team.teamId, doc, 0), lease }),
    ).rejects.toBeInstanceOf(CreditLimitReached);
    expect(await t.db.selectFrom('documents').select('id').where('job_id', '=', jobId).execute()).toEqual([]);
    expect(await ledgerTotal(t.db, { teamId: team.teamId })).toBe(0);
    expect(await jobStatus(jobId)).toBe('scraping');
    expect(await countActiveSlots(t.db, team.teamId)).toBe(1);
  });

  it('stores the page-cache copy with the page, and not when the charge is refused', async () => {
    const team = await newTeam(t.db);
    const copy = (key: string) => ({
      teamId: team.teamId,
      key,
      url: `https://example.com/${key}`,
      document: JSON.stringify({ markdown: key }),
      outcome: JSON.stringify({ statusCode: 200 }),
      cachedAt: new Date(),
    });
    const stored = await newJob(t.db, team, 'scrape');
    const doc = documentRow(stored, team.teamId, 'k');
    const lease = await leaseSlot(team.teamId);
    await storeScrapeResult(t.db, { document: doc, charge: charge(stored, team.teamId, doc), lease, cacheCopy: copy('kept') });
    const refused = await newJob(t.db, team, 'scrape');
    const refusedDoc = documentRow(refused, team.teamId, 'k');
    const refusedLease = await leaseSlot(team.teamId);
    await expect(
      storeScrapeResult(t.db, {
        document: refusedDoc,
        charge: charge(refused, team.teamId, refusedDoc, 0),
        lease: refusedLease,
        cacheCopy: copy('dropped'),
      }),
    ).rejects.toBeInstanceOf(CreditLimitReached);
    const keys = await t.db.selectFrom('page_cache').select('cache_key').where('team_id', '=', team.teamId).execute();
    expect(keys).toEqual([{ cache_key: 'kept' }]);
  });

  it('notifies the job once it is stored, and not for a retry or a refused charge', async () => {
    const team = await newTeam(t.db);
    const notified: string[] = [];
    const listener = listen(t.url, SCRAPE_STORED_CHANNEL, (jobId) => notified.push(jobId), () => undefined);
    try {
      // A notice for a warm-up job proves the listener is connected before anything is asserted.
      await vi.waitFor(async () => {
        const warmUp = await newJob(t.db, team, 'scrape');
        const warmUpDoc = documentRow(warmUp, team.teamId, 'k');
        await storeScrapeResult(t.db, { document: warmUpDoc, charge: charge(warmUp, team.teamId, warmUpDoc), lease: await leaseSlot(team.teamId) });
        await vi.waitFor(() => expect(notified).toContain(warmUp), { timeout: 200 });
      });
      notified.length = 0;
      const first = await newJob(t.db, team, 'scrape');
      const doc = documentRow(first, team.teamId, 'k');
      await storeScrapeResult(t.db, { document: doc, charge: charge(first, team.teamId, doc), lease: await leaseSlot(team.teamId) });
      const again = documentRow(first, team.teamId, 'k');
      await storeScrapeResult(t.db, { document: again, charge: charge(first, team.teamId, again), lease: await leaseSlot(team.teamId) });
      const refused = await newJob(t.db, team, 'scrape');
      const refusedDoc = documentRow(refused, team.teamId, 'k');
      await expect(
        storeScrapeResult(t.db, {
          document: refusedDoc,
          charge: charge(refused, team.teamId, refusedDoc, 0),
          lease: await leaseSlot(team.teamId),
        }),
      ).rejects.toBeInstanceOf(CreditLimitReached);
      // A later notice marks the point by which any of the above would have arrived.
      const last = await newJob(t.db, team, 'scrape');
      const lastDoc = documentRow(last, team.teamId, 'k');
      await storeScrapeResult(t.db, { document: lastDoc, charge: charge(last, team.teamId, lastDoc), lease: await leaseSlot(team.teamId) });
      await vi.waitFor(() => expect(notified).toContain(last));
      expect(notified).toEqual([first, last]);
    } finally {
      await listener.close();
    }
  });

  it('stores a page, its cache copy and its charge in one statement', async () => {
    const team = await newTeam(t.db);
    const jobId = await newJob(t.db, team, 'scrape');
    const doc = documentRow(jobId, team.teamId, 'k');
    const lease = await leaseSlot(team.teamId);
    // A plugin sees the result of each statement sent (its query hook sees each builder's tree as well).
    let statements = 0;
    const counted = t.db.withPlugin({
      transformQuery: ({ node }) => node,
      transformResult: async ({ result }) => {
        statements++;
        return result;
      },
    });
    const cacheCopy = {
      teamId: team.teamId,
      key: 'k',
      url: 'https://example.com/k',
      document: JSON.stringify({ markdown: 'k' }),
      outcome: JSON.stringify({ statusCode: 200 }),
      cachedAt: new Date(),
    };
    await storeScrapeResult(counted, { document: doc, charge: charge(jobId, team.teamId, doc), lease, cacheCopy });
    expect(statements).toBe(1);
    expect(await ledgerTotal(t.db, { jobId })).toBe(1);
    expect(await jobStatus(jobId)).toBe('completed');
    expect(await countActiveSlots(t.db, team.teamId)).toBe(0);
    expect(await t.db.selectFrom('page_cache').select('cache_key').where('team_id', '=', team.teamId).execute()).toEqual([{ cache_key: 'k' }]);
  });

  it('leaves a job the API already failed failed', async () => {
    const team = await newTeam(t.db);
    const jobId = await newJob(t.db, team, 'scrape');
    await t.db.updateTable('jobs').set({ status: 'failed' }).where('id', '=', jobId).execute();
    const doc = documentRow(jobId, team.teamId, 'k');
    await storeScrapeResult(t.db, { document: doc, charge: charge(jobId, team.teamId, doc), lease: await leaseSlot(team.teamId) });
    expect(await jobStatus(jobId)).toBe('failed');
  });
});

describe('a crawl page (settlePage)', () => {
  it('settles page, document and charge together, and a retried settle charges nothing', async () => {
    const team = await newTeam(t.db);
    const jobId = await newJob(t.db, team);
    await queuePages(jobId, ['a']);
    const doc = documentRow(jobId, team.teamId, 'a');
    await settlePage(t.db, { jobId, urlKey: 'a', status: 'completed' }, doc, { charge: charge(jobId, team.teamId, doc) });
    const again = documentRow(jobId, team.teamId, 'a');
    await settlePage(t.db, { jobId, urlKey: 'a', status: 'completed' }, again, { charge: charge(jobId, team.teamId, again) });

    expect(await ledgerTotal(t.db, { jobId })).toBe(1);
    const stored = await t.db.selectFrom('documents').select(['id', 'credits_used']).where('job_id', '=', jobId).execute();
    expect(stored).toEqual([{ id: doc.id, credits_used: 1 }]);
    const frontier = await t.db.selectFrom('crawl_pages').select(['status', 'document_id']).where('job_id', '=', jobId).execute();
    expect(frontier).toEqual([{ status: 'completed', document_id: doc.id }]);
  });

  it('frees the page’s slot with it, and not when the charge is refused', async () => {
    const team = await newTeam(t.db);
    const jobId = await newJob(t.db, team);
    await queuePages(jobId, ['a', 'b']);
    const doc = documentRow(jobId, team.teamId, 'a');
    const settled = await settlePage(t.db, { jobId, urlKey: 'a', status: 'completed' }, doc, {
      charge: charge(jobId, team.teamId, doc),
      lease: await leaseSlot(team.teamId),
    });
    expect(settled).toEqual({ documentId: doc.id, inserted: true });
    expect(await countActiveSlots(t.db, team.teamId)).toBe(0);

    const refusedDoc = documentRow(jobId, team.teamId, 'b');
    await expect(
      settlePage(t.db, { jobId, urlKey: 'b', status: 'completed' }, refusedDoc, {
        charge: charge(jobId, team.teamId, refusedDoc, 1),
        lease: await leaseSlot(team.teamId),
      }),
    ).rejects.toBeInstanceOf(CreditLimitReached);
    expect(await countActiveSlots(t.db, team.teamId)).toBe(1);
  });

  it('rolls the page back when the team has no credits left: no document, page still open, nothing charged', async () => {
    const team = await newTeam(t.db);
    const jobId = await newJob(t.db, team);
    await queuePages(jobId, ['a', 'b', 'c']);
    for (const key of ['a', 'b']) {
      const doc = documentRow(jobId, team.teamId, key);
      await settlePage(t.db, { jobId, urlKey: key, status: 'completed' }, doc, { charge: charge(jobId, team.teamId, doc, 2) });
    }
    const doc = documentRow(jobId, team.teamId, 'c');
    await expect(
      settlePage(t.db, { jobId, urlKey: 'c', status: 'completed' }, doc, { charge: charge(jobId, team.teamId, doc, 2) }),
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
  it('settles a page while the crawl enqueues links to it, without a deadlock', async () => {
    const team = await newTeam(t.db);
    const jobId = await newJob(t.db, team);
    await queuePages(jobId, ['a']);
    const doc = documentRow(jobId, team.teamId, 'a');
    let settling: Promise<unknown> | undefined;
    // An append to a batch holds the job row (lockJobFor) while a settle of a page it adds starts.
    await t.db.transaction().execute(async (trx) => {
      await trx.selectFrom('jobs').select('id').where('id', '=', jobId).forUpdate().execute();
      settling = settlePage(t.db, { jobId, urlKey: 'a', status: 'completed' }, doc, { charge: charge(jobId, team.teamId, doc) });
      settling.catch(() => undefined);
      await waitForLockWait(t.db);
      await trx
        .insertInto('crawl_pages')
        .values({ job_id: jobId, url_key: 'a', url: 'https://example.com/a', depth: 1 })
        .onConflict((oc) => oc.columns(['job_id', 'url_key']).doNothing())
        .execute();
    });
    await expect(settling).resolves.toEqual({ documentId: doc.id, inserted: true });
  });

  it('settles a page while an enqueue of the same crawl holds its lock, without waiting for it', async () => {
    const team = await newTeam(t.db);
    const jobId = await newJob(t.db, team);
    await queuePages(jobId, ['a']);
    const doc = documentRow(jobId, team.teamId, 'a');
    await t.db.transaction().execute(async (trx) => {
      await lockEnqueues(trx, jobId);
      // The settle either ends or waits on a lock; the enqueue's lock is held until it does one of them.
      const first = await endsOrWaitsOnLock(t.db, settlePage(t.db, { jobId, urlKey: 'a', status: 'completed' }, doc, { charge: charge(jobId, team.teamId, doc) }));
      expect(first).toBe('ended');
    });
  });

  it('stores and charges a page once when several attempts settle it at the same moment, all naming the one Document', async () => {
    const team = await newTeam(t.db);
    const jobId = await newJob(t.db, team);
    await queuePages(jobId, ['a']);
    const results = await Promise.all(
      Array.from({ length: 8 }, () => {
        const doc = documentRow(jobId, team.teamId, 'a');
        return settlePage(t.db, { jobId, urlKey: 'a', status: 'completed' }, doc, { charge: charge(jobId, team.teamId, doc) });
      }),
    );
    expect(results.filter((r) => r.inserted)).toHaveLength(1);
    const stored = await t.db.selectFrom('documents').select('id').where('job_id', '=', jobId).execute();
    expect(stored).toHaveLength(1);
    expect(new Set(results.map((r) => r.documentId))).toEqual(new Set([stored[0]!.id]));
    const frontier = await t.db.selectFrom('crawl_pages').select('document_id').where('job_id', '=', jobId).executeTakeFirstOrThrow();
    expect(frontier.document_id).toBe(stored[0]!.id);
    expect(await ledgerTotal(t.db, { jobId })).toBe(1);
  });

  it('charges exactly the plan when 60 pages settle at once against 20 credits', async () => {
    const team = await newTeam(t.db);
    const jobId = await newJob(t.db, team);
    const keys = Array.from({ length: 60 }, (_, i) => `p${i}`);
    await queuePages(jobId, keys);
    const results = await Promise.allSettled(
      keys.map((key) => {
        const doc = documentRow(jobId, team.teamId, key);
        return settlePage(t.db, { jobId, urlKey: key, status: 'completed' }, doc, { charge: charge(jobId, team.teamId, doc, 20) });
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
  it('reads the team’s stored plan (or none) and its usage this period together', async () => {
    const team = await newTeam(t.db);
    const empty = await readTeamStanding(t.db, team.teamId);
    expect(empty.planRow).toBeUndefined();
    expect(empty.usage).toEqual(await readPeriodUsage(t.db, team.teamId));

    await saveTeamPlan(t.db, { team_id: team.teamId, ...planColumns({ ...DEFAULT_PLAN, monthlyCredits: 7, concurrency: 3 }) });
    const jobId = await newJob(t.db, team, 'scrape');
    const doc = documentRow(jobId, team.teamId, 'k');
    await storeScrapeResult(t.db, { document: doc, charge: charge(jobId, team.teamId, doc), lease: await leaseSlot(team.teamId) });
    const standing = await readTeamStanding(t.db, team.teamId);
    expect(resolvePlan(standing.planRow)).toMatchObject({ monthlyCredits: 7, concurrency: 3 });
    expect(standing.usage.used).toBe(1);
  });

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
      await storeScrapeResult(t.db, { document: doc, charge: charge(jobId, team.teamId, doc), lease: await leaseSlot(team.teamId) });
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
