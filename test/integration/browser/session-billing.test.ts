/**
 * The end of a browser session is billed once and never left undone (activities/browser/session.ts
 * finishBrowserSession): a page charged between the balance's read and the session's charge makes
 * the session bill what is left instead of failing and staying active, and a retried finish answers
 * what the first one billed.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserSessionActivities } from '../../../activities/browser/session.js';
import type { ActivityDeps } from '../../../activities/deps.js';
import type { BrowserPool } from '../../../browser/browser-pool.js';
import { insertBrowserSession } from '../../../db/repositories/browser-sessions.js';
import { recordCharge } from '../../../db/repositories/ledger.js';
import { findOrCreateTeam } from '../../../db/repositories/teams.js';
import { readTeamStanding } from '../../../db/repositories/usage.js';
import { creditsLeft } from '../../../lib/credits.js';
import { resolvePlan } from '../../../lib/plans.js';
import { createTestDb, insertRunningJob, type TestDb } from '../../helpers/test-db.js';

let testDb: TestDb;

beforeAll(async () => {
  testDb = await createTestDb('trawl_session_billing');
});

afterAll(async () => {
  await testDb?.drop();
});

async function openSession(teamId: string): Promise<string> {
  const id = await insertRunningJob(testDb.db, { teamId, kind: 'browser', url: 'https://shop.example/' });
  await insertBrowserSession(testDb.db, { id, teamId, scrapeId: null, ttlS: 600, activityTtlS: 300, profileName: null, saveChanges: false });
  return id;
}

function finisher(db: ActivityDeps['db']) {
  return createBrowserSessionActivities({ db, browser: undefined as unknown as BrowserPool, allowPrivateNetwork: true }).finishBrowserSession;
}

describe('the end of a browser session', () => {
  it('bills what is left when a page took the credits after the balance was read, and ends the session', async () => {
    const teamId = (await findOrCreateTeam(testDb.db, `session-billing-${randomUUID()}`)).id;
    const sessionId = await openSession(teamId);
    const pageJob = await insertRunningJob(testDb.db, { teamId, kind: 'scrape', url: 'https://shop.example/page' });
    // Right after the finish's first read of the balance, a page of another job takes all but one credit.
    let raced = false;
    const racing = testDb.db.withPlugin({
      transformQuery: ({ node }) => node,
      transformResult: async ({ result }) => {
        const row = result.rows[0] as { period_used?: unknown } | undefined;
        if (!raced && row && 'period_used' in row) {
          raced = true;
          const { planRow, usage } = await readTeamStanding(testDb.db, teamId);
          const plan = resolvePlan(planRow);
          const credits = creditsLeft(plan.monthlyCredits, usage.used) - 1;
          await testDb.db.transaction().execute((trx) =>
            recordCharge(trx, { teamId, jobId: pageJob, documentId: null, chargeKey: `page:${pageJob}:x`, reason: 'scrape', credits, periodCredits: plan.monthlyCredits }),
          );
        }
        return result;
      },
    });
    // One minute of a code session costs 2 credits; 1 is left when the charge is made.
    const ended = await finisher(racing)({ sessionId, teamId, status: 'destroyed', reason: 'stopped', aliveMs: 60_000, billable: true });
    expect(raced).toBe(true);
    expect(ended).toEqual({ credits: 1 });
    const session = await testDb.db.selectFrom('browser_sessions').select(['status', 'credits_billed']).where('id', '=', sessionId).executeTakeFirstOrThrow();
    expect(session).toEqual({ status: 'destroyed', credits_billed: 1 });
    const job = await testDb.db.selectFrom('jobs').select('status').where('id', '=', sessionId).executeTakeFirstOrThrow();
    expect(job.status).toBe('completed');
  });

  it('answers a retried finish with what the first one billed', async () => {
    const teamId = (await findOrCreateTeam(testDb.db, `session-billing-${randomUUID()}`)).id;
    const sessionId = await openSession(teamId);
    const finish = finisher(testDb.db);
    const input = { sessionId, teamId, status: 'destroyed' as const, reason: 'stopped', aliveMs: 60_000, billable: true };
    expect(await finish(input)).toEqual({ credits: 2 });
    expect(await finish(input)).toEqual({ credits: 2 });
  });
});
