/**
 * A monitor check's workflow (workflows/monitor-check.ts) on a real Temporal test server with its
 * activities stubbed: the checks it skips (another check running, no credits) start nothing, a
 * failing search target is reported with its error instead of failing the check, and a check
 * whose every page failed fails in the Temporal UI too.
 */
import { describe, expect, it } from 'vitest';
import type { BeginMonitorCheckResult, FinishMonitorCheckInput, FinishMonitorCheckResult } from '../../../activities/monitor/check.js';
import type { TrawlActivities } from '../../../activities/index.js';
import { NonRetryablePageError, toApplicationFailure } from '../../../lib/errors.js';
import { monitorCheckWorkflow } from '../../../workflows/index.js';
import { workflowTestEnvForFile } from '../../helpers/workflow-test-env.js';

const workflowEnv = workflowTestEnvForFile();
let seq = 0;

const SUMMARY: FinishMonitorCheckResult['summary'] = { totalPages: 1, same: 0, changed: 0, new: 0, removed: 0, error: 1 } as FinishMonitorCheckResult['summary'];

class FakeMonitor {
  finishes: FinishMonitorCheckInput[] = [];
  failures: string[] = [];
  searches = 0;
  constructor(
    private readonly begun: BeginMonitorCheckResult,
    private readonly finishStatus: FinishMonitorCheckResult['status'] = 'completed',
  ) {}

  activities(): Partial<TrawlActivities> {
    return {
      beginMonitorCheck: async () => this.begun,
      runMonitorSearch: async () => {
        this.searches += 1;
        // As the real activity fails: a TrawlError converted at the activity's boundary.
        throw toApplicationFailure(new NonRetryablePageError('SEARCH_PROVIDER_ERROR', 'The search provider is down'));
      },
      finishMonitorCheck: async (input) => {
        this.finishes.push(input);
        return { status: this.finishStatus, summary: SUMMARY, actualCredits: 0, eventPageIds: [], error: this.finishStatus === 'failed' ? 'Every page of the check failed' : null };
      },
      failMonitorCheck: async ({ error }) => {
        this.failures.push(error);
      },
      deliverWebhook: async () => ({ status: 200 }),
    };
  }
}

function runCheck(monitor: FakeMonitor) {
  const workflowId = `monitor-check-${++seq}`;
  return workflowEnv().withWorker(monitor.activities(), (taskQueue) =>
    workflowEnv().env.client.workflow.execute(monitorCheckWorkflow, { taskQueue, workflowId, args: [{ monitorId: 'monitor', trigger: 'scheduled' }] }),
  );
}

describe('monitor check workflow, with stub activities', () => {
  it.each(['skipped_overlap', 'skipped_no_credits'] as const)('ends a check recorded %s there: no target runs, nothing is finished', async (status) => {
    const monitor = new FakeMonitor({ status, teamId: 'team', jobs: [], searches: [{ targetId: 'search', plan: { queries: ['q'] } as never }] });
    const result = await runCheck(monitor);
    expect(result).toEqual({ checkId: expect.any(String), status });
    expect(monitor.searches).toBe(0);
    expect(monitor.finishes).toEqual([]);
    expect(monitor.failures).toEqual([]);
  }, 60_000);

  it('reports a failing search target with its error, and finishes the check', async () => {
    const monitor = new FakeMonitor({ status: 'running', teamId: 'team', jobs: [], searches: [{ targetId: 'search', plan: { queries: ['q'] } as never }] }, 'partial');
    const result = await runCheck(monitor);
    expect(result).toMatchObject({ status: 'partial' });
    expect(monitor.finishes).toHaveLength(1);
    expect(monitor.finishes[0]!.searches).toEqual([{ targetId: 'search', error: 'The search provider is down' }]);
  }, 60_000);

  it('fails a check whose every page failed, in Temporal too', async () => {
    const monitor = new FakeMonitor({ status: 'running', teamId: 'team', jobs: [], searches: [] }, 'failed');
    const outcome = await runCheck(monitor).then(
      () => 'completed',
      (err: Error) => (err.cause as Error | undefined)?.message ?? err.message,
    );
    expect(outcome).toMatch(/Every page of the check failed/);
    expect(monitor.finishes).toHaveLength(1);
    // finishMonitorCheck recorded it; the abandon on the way out only acts on a check still running.
    expect(monitor.failures).toEqual(['Every page of the check failed']);
  }, 60_000);
});
