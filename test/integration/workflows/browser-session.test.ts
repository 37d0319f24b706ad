/**
 * A browser session's workflow (workflows/browser-session.ts) on a real Temporal test server with
 * its activities stubbed: executes are Updates that reach the worker the session opened on, the
 * inactivity timeout and the TTL end it, a stop saves the profile, a worker that stops holding it
 * ends it `lost` and billed only until it was last seen alive, and a session that failed to open
 * answers why and costs nothing.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Context } from '@temporalio/activity';
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import type { TrawlActivities } from '../../../activities/index.js';
import type { CloseSessionInput, FinishSessionInput } from '../../../activities/browser/session.js';
import { fromFailure, NonRetryablePageError, toApplicationFailure } from '../../../lib/errors.js';
import { browserSessionWorkflow, type BrowserSessionInput } from '../../../workflows/browser-session.js';
import { executeInSessionUpdate, sessionReadyUpdate, stopSessionUpdate } from '../../../workflows/messages.js';
import { workflowTestEnvForFile } from '../../helpers/workflow-test-env.js';

const workflowEnv = workflowTestEnvForFile();
let seq = 0;

class FakeWorker {
  closes: CloseSessionInput[] = [];
  finishes: FinishSessionInput[] = [];
  executes = 0;
  /** Set to make the hold fail, as a worker that died would. */
  holdFails?: () => void;
  constructor(private readonly opts: { openFails?: boolean; sessionQueue?: string } = {}) {}

  activities(): Partial<TrawlActivities> {
    return {
      openBrowserSession: async () => {
        if (this.opts.openFails) throw toApplicationFailure(new NonRetryablePageError('CONCURRENCY_LIMITED', 'Too many browser sessions'));
        return { taskQueue: this.opts.sessionQueue ?? Context.current().info.taskQueue };
      },
      holdBrowserSession: async () => {
        const ctx = Context.current();
        let failed = false;
        this.holdFails = () => (failed = true);
        while (!ctx.cancellationSignal.aborted) {
          if (failed) throw new Error('worker gone');
          ctx.heartbeat();
          await sleep(100);
        }
        return { reason: 'the session ended' };
      },
      executeInBrowserSession: async (input) => {
        this.executes++;
        return { stdout: `ran ${input.code}`, stderr: '', exitCode: 0, killed: false };
      },
      closeBrowserSession: async (input) => {
        this.closes.push(input);
        return { profileSaved: Boolean(input.profile?.saveChanges) };
      },
      finishBrowserSession: async (input) => {
        this.finishes.push(input);
        return { credits: input.billable ? 2 : 0 };
      },
    };
  }
}

function session(worker: FakeWorker, input: Partial<BrowserSessionInput>, body: (handle: WorkflowHandle<typeof browserSessionWorkflow>) => Promise<void>) {
  const start = (taskQueue: string) =>
    workflowEnv().env.client.workflow.start(browserSessionWorkflow, {
      taskQueue,
      workflowId: `browser-test-${++seq}`,
      args: [{ sessionId: `s${seq}`, teamId: 'team', ttlMs: 60_000, activityTtlMs: 60_000, ...input }],
    });
  return workflowEnv().withWorker(worker.activities(), async (taskQueue) => {
    const handle = await start(taskQueue);
    await body(handle);
  });
}

describe('browser session workflow, with stub activities', () => {
  it('runs executes as Updates on the opening worker, and a stop saves the profile and bills the time', async () => {
    const worker = new FakeWorker();
    await session(worker, { profile: { name: 'p', saveChanges: true } }, async (handle) => {
      expect(await handle.executeUpdate(sessionReadyUpdate)).toEqual({ ok: true });
      const result = await handle.executeUpdate(executeInSessionUpdate, { args: [{ language: 'bash', code: 'snapshot', timeoutMs: 5_000 }] });
      expect(result).toMatchObject({ stdout: 'ran snapshot', exitCode: 0 });
      const outcome = await handle.executeUpdate(stopSessionUpdate);
      expect(outcome).toMatchObject({ status: 'destroyed', reason: 'deleted', credits: 2 });
      expect(await handle.result()).toEqual(outcome);
      const refused = await handle.executeUpdate(executeInSessionUpdate, { args: [{ language: 'bash', code: 'x', timeoutMs: 1_000 }] }).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(Error);
    });
    expect(worker.closes).toEqual([{ sessionId: expect.any(String), teamId: 'team', profile: { name: 'p', saveChanges: true } }]);
    expect(worker.finishes).toMatchObject([{ status: 'destroyed', billable: true }]);
  }, 60_000);

  it('ends after the inactivity timeout, which executes push back', async () => {
    const worker = new FakeWorker();
    await session(worker, { activityTtlMs: 1_500 }, async (handle) => {
      await handle.executeUpdate(sessionReadyUpdate);
      for (let i = 0; i < 3; i++) {
        await sleep(700);
        await handle.executeUpdate(executeInSessionUpdate, { args: [{ language: 'bash', code: 'wait 1', timeoutMs: 1_000 }] });
      }
      const outcome = await handle.result();
      expect(outcome).toMatchObject({ status: 'destroyed', reason: 'the session was inactive for its activityTtl' });
      expect(outcome.durationMs).toBeGreaterThanOrEqual(2_100 + 1_500);
    });
    expect(worker.executes).toBe(3);
    expect(worker.closes).toHaveLength(1);
  }, 60_000);

  it('ends at its TTL even while it is busy being used', async () => {
    const worker = new FakeWorker();
    await session(worker, { ttlMs: 2_000, activityTtlMs: 60_000 }, async (handle) => {
      const result = handle.result();
      await handle.executeUpdate(sessionReadyUpdate);
      while ((await handle.describe()).status.name === 'RUNNING') {
        await handle.executeUpdate(executeInSessionUpdate, { args: [{ language: 'bash', code: 'x', timeoutMs: 1_000 }] }).catch(() => undefined);
        await sleep(200);
      }
      expect(await result).toMatchObject({ status: 'destroyed', reason: 'the session reached its ttl' });
    });
  }, 60_000);

  it('ends lost when the worker stops holding it, billed only until it was last seen alive', async () => {
    const worker = new FakeWorker();
    await session(worker, {}, async (handle) => {
      await handle.executeUpdate(sessionReadyUpdate);
      await handle.executeUpdate(executeInSessionUpdate, { args: [{ language: 'bash', code: 'x', timeoutMs: 1_000 }] });
      await sleep(1_500);
      worker.holdFails!();
      const outcome = await handle.result();
      expect(outcome).toMatchObject({ status: 'lost', reason: 'the worker holding it stopped' });
      // The 1.5 s after the last execute are not billed.
      expect(outcome.durationMs).toBeLessThan(1_500);
    });
    expect(worker.closes).toEqual([]);
    expect(worker.finishes).toMatchObject([{ status: 'lost' }]);
  }, 60_000);

  it('answers an execute SESSION_LOST when no worker polls the queue it opened on', async () => {
    const worker = new FakeWorker({ sessionQueue: 'a-queue-no-worker-polls' });
    await session(worker, {}, async (handle) => {
      await handle.executeUpdate(sessionReadyUpdate);
      const err = await handle.executeUpdate(executeInSessionUpdate, { args: [{ language: 'bash', code: 'x', timeoutMs: 1_000 }] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
      expect(fromFailure(err)?.code).toBe('SESSION_LOST');
      expect(await handle.result()).toMatchObject({ status: 'lost' });
    });
  }, 60_000);

  it('answers why a session could not open, and charges nothing', async () => {
    const worker = new FakeWorker({ openFails: true });
    await session(worker, {}, async (handle) => {
      expect(await handle.executeUpdate(sessionReadyUpdate)).toEqual({ ok: false, code: 'CONCURRENCY_LIMITED', error: 'Too many browser sessions' });
      expect(await handle.result()).toMatchObject({ status: 'destroyed', credits: 0 });
    });
    expect(worker.finishes).toMatchObject([{ billable: false, aliveMs: 0 }]);
  }, 60_000);
});
