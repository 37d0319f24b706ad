/**
 * A session's hold (activities/browser/session.ts holdBrowserSession) renews the session's place
 * among the team's concurrency slots. A renewal that fails (the database briefly gone) is not the
 * session's failure: the page lives on, and whatever ends the hold ends the page with it.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createBrowserSessionActivities } from '../../../activities/browser/session.js';
import type { LiveSession, LiveSessions } from '../../../activities/browser/live-sessions.js';
import { RENEW_INTERVAL_MS } from '../../../activities/page/team-slot.js';
import type { BrowserPool } from '../../../browser/browser-pool.js';
import { createTestDb, type TestDb } from '../../helpers/test-db.js';

let testDb: TestDb;

beforeAll(async () => {
  testDb = await createTestDb('trawl_session_hold');
});

afterAll(async () => {
  await testDb?.drop();
});

function fakeSession(id: string): LiveSession & { endedWith(): string | undefined } {
  let why: string | undefined;
  let resolve!: (reason: string) => void;
  const ended = new Promise<string>((r) => (resolve = r));
  return {
    id,
    teamId: 'team',
    page: undefined as unknown as LiveSession['page'],
    ended,
    end: (reason) => {
      why ??= reason;
      resolve(reason);
    },
    exclusive: (work) => work(),
    nextFrame: () => 0,
    endedWith: () => why,
  };
}

it('keeps the session through failed renewals, and ends its page when the hold is cancelled', { timeout: RENEW_INTERVAL_MS * 3 }, async () => {
  const session = fakeSession('session-1');
  const liveSessions = { taskQueue: 'q', get: (id: string) => (id === session.id ? session : undefined) } as unknown as LiveSessions;
  let renewals = 0;
  const databaseDown = testDb.db.withPlugin({
    transformQuery: () => {
      renewals++;
      throw new Error('connection terminated unexpectedly');
    },
    transformResult: async ({ result }) => result,
  });
  const { holdBrowserSession } = createBrowserSessionActivities({
    db: databaseDown,
    browser: undefined as unknown as BrowserPool,
    allowPrivateNetwork: true,
    liveSessions,
  });
  const env = new MockActivityEnvironment();
  const holding = env.run(holdBrowserSession, { sessionId: session.id, teamId: 'team' });
  const outcome = holding.then(
    (result) => ({ result }),
    (error: unknown) => ({ error }),
  );

  const settled = await Promise.race([outcome, new Promise((r) => setTimeout(r, RENEW_INTERVAL_MS + 3_000, 'holding'))]);
  expect(renewals).toBeGreaterThan(0);
  expect(settled).toBe('holding');
  expect(session.endedWith()).toBeUndefined();

  env.cancel();
  expect(await outcome).toEqual({ result: { reason: 'the session ended' } });
  expect(session.endedWith()).toBe('the session ended');
});
