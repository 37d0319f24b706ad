/**
 * A live browser session, `browser-<id>`: the TTL and the inactivity timeout are timers, each
 * execute is an Update, and `stop` (or a cancellation) ends it.
 *
 * The page lives in one worker's memory, so after the open (on the shared queue) every activity
 * of the session goes to that worker's own task queue, which no other worker polls. A worker that
 * dies is noticed by the hold's missed heartbeat, or by an execute or close that no worker picks
 * up within SCHEDULE_TO_START: the session ends `lost` (SESSION_LOST), billed only for the time
 * it was known to be alive, and its profile keeps what was last saved.
 */
import {
  type ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  isCancellation,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import type { OpenSessionInput } from '../activities/browser/session.js';
import type { TrawlActivities } from '../activities/index.js';
import { fromFailure, NonRetryablePageError, sessionLostError, toApplicationFailure } from '../lib/errors.js';
import { BOOKKEEPING_RETRY_POLICY } from './activities.js';
import {
  executeInSessionUpdate,
  sessionReadyUpdate,
  stopSessionUpdate,
  type SessionExecuteRequest,
  type SessionOutcome,
  type SessionReady,
} from './messages.js';

export interface BrowserSessionInput {
  sessionId: string;
  teamId: string;
  ttlMs: number;
  activityTtlMs: number;
  profile?: { name: string; saveChanges: boolean };
  start?: OpenSessionInput['start'];
  /** recordSession: false keeps no replay frames. @default true */
  record?: boolean;
}

/** How long an activity for the session's worker may wait to be picked up before the worker counts as gone. */
const SCHEDULE_TO_START = '10s';
const HOLD_HEARTBEAT_TIMEOUT = '10s';

const opening = proxyActivities<TrawlActivities>({ startToCloseTimeout: '90s', retry: { maximumAttempts: 1 } });
const bookkeeping = proxyActivities<TrawlActivities>({ startToCloseTimeout: '30s', retry: BOOKKEEPING_RETRY_POLICY });

function onWorker(taskQueue: string, input: BrowserSessionInput) {
  return {
    hold: proxyActivities<TrawlActivities>({
      taskQueue,
      scheduleToStartTimeout: SCHEDULE_TO_START,
      startToCloseTimeout: input.ttlMs + 60_000,
      heartbeatTimeout: HOLD_HEARTBEAT_TIMEOUT,
      retry: { maximumAttempts: 1 },
    }),
    // User code is not idempotent: an execute runs once.
    execute: (timeoutMs: number) =>
      proxyActivities<TrawlActivities>({ taskQueue, scheduleToStartTimeout: SCHEDULE_TO_START, startToCloseTimeout: timeoutMs + 30_000, retry: { maximumAttempts: 1 } }),
    close: proxyActivities<TrawlActivities>({ taskQueue, scheduleToStartTimeout: SCHEDULE_TO_START, startToCloseTimeout: '30s', retry: { maximumAttempts: 2 } }),
  };
}

function sessionLost(): ApplicationFailure {
  return toApplicationFailure(sessionLostError());
}

export async function browserSessionWorkflow(input: BrowserSessionInput): Promise<SessionOutcome> {
  const startedAt = Date.now();
  let aliveAt = startedAt;
  let lastActivity = startedAt;
  let activitySeen = 0;
  let busy = 0;
  let phase: 'opening' | 'open' | 'ending' | 'ended' = 'opening';
  let ready: SessionReady | undefined;
  let stopReason: string | undefined;
  let lostReason: string | undefined;
  let outcome: SessionOutcome | undefined;
  let worker: ReturnType<typeof onWorker> | undefined;

  setHandler(sessionReadyUpdate, async () => {
    await condition(() => ready !== undefined);
    return ready!;
  });
  setHandler(stopSessionUpdate, async () => {
    stopReason ??= 'deleted';
    await condition(() => outcome !== undefined);
    return outcome!;
  });
  setHandler(
    executeInSessionUpdate,
    async (req: SessionExecuteRequest) => {
      busy++;
      activitySeen++;
      try {
        const result = await worker!.execute(req.timeoutMs).executeInBrowserSession({ ...req, sessionId: input.sessionId, teamId: input.teamId, record: input.record !== false });
        aliveAt = Date.now();
        return result;
      } catch (err) {
        const known = fromFailure(err);
        if (known && known.code !== 'SESSION_LOST') throw err;
        lostReason ??= 'the worker holding it stopped';
        throw sessionLost();
      } finally {
        busy--;
        lastActivity = Date.now();
        activitySeen++;
      }
    },
    {
      validator: (_req: SessionExecuteRequest) => {
        if (phase !== 'open' || stopReason !== undefined || lostReason !== undefined) {
          throw toApplicationFailure(new NonRetryablePageError('SESSION_ENDED', 'Browser session has been destroyed.'));
        }
      },
    },
  );

  try {
    const opened = await opening.openBrowserSession({ sessionId: input.sessionId, teamId: input.teamId, profileName: input.profile?.name, start: input.start });
    worker = onWorker(opened.taskQueue, input);
  } catch (err) {
    const known = fromFailure(err);
    ready = { ok: false, code: known?.code ?? 'SERVICE_UNAVAILABLE', error: known?.message ?? 'The browser session could not be opened' };
    outcome = await finish(input, 'destroyed', `failed to open: ${ready.error}`, 0);
    phase = 'ended';
    await condition(allHandlersFinished);
    return outcome;
  }
  aliveAt = Date.now();
  lastActivity = aliveAt;
  phase = 'open';
  ready = { ok: true };

  const holdScope = new CancellationScope();
  void holdScope
    .run(() => worker!.hold.holdBrowserSession({ sessionId: input.sessionId, teamId: input.teamId }))
    .then(
      ({ reason }) => (lostReason ??= stopReason === undefined ? reason : undefined),
      (err: unknown) => {
        if (!isCancellation(err)) lostReason ??= 'the worker holding it stopped';
      },
    );

  try {
    await waitForEnd();
  } catch (err) {
    if (!isCancellation(err)) throw err;
    stopReason ??= 'cancelled';
  }

  return CancellationScope.nonCancellable(async () => {
    phase = 'ending';
    if (lostReason === undefined) {
      try {
        await worker!.close.closeBrowserSession({ sessionId: input.sessionId, teamId: input.teamId, profile: input.profile });
        aliveAt = Date.now();
      } catch {
        lostReason = 'the worker holding it stopped';
      }
    }
    holdScope.cancel();
    const lost = lostReason !== undefined;
    outcome = await finish(input, lost ? 'lost' : 'destroyed', lostReason ?? stopReason ?? 'ended', aliveAt - startedAt);
    phase = 'ended';
    await condition(allHandlersFinished);
    return outcome;
  });

  /** Until a stop, a loss, the TTL, or the inactivity timeout (which an execute in progress holds off). */
  async function waitForEnd(): Promise<void> {
    const expiresAt = startedAt + input.ttlMs;
    for (;;) {
      if (stopReason !== undefined || lostReason !== undefined) return;
      const now = Date.now();
      if (now >= expiresAt) return void (stopReason = 'the session reached its ttl');
      const idleAt = lastActivity + input.activityTtlMs;
      if (busy === 0 && now >= idleAt) return void (stopReason = 'the session was inactive for its activityTtl');
      const seen = activitySeen;
      await condition(() => stopReason !== undefined || lostReason !== undefined || activitySeen !== seen, Math.max(1, (busy > 0 ? expiresAt : Math.min(expiresAt, idleAt)) - now));
    }
  }
}

async function finish(input: BrowserSessionInput, status: 'destroyed' | 'lost', reason: string, aliveMs: number): Promise<SessionOutcome> {
  const { credits } = await bookkeeping.finishBrowserSession({ sessionId: input.sessionId, teamId: input.teamId, status, reason, aliveMs, billable: aliveMs > 0 });
  return { status, reason, durationMs: aliveMs, credits };
}
