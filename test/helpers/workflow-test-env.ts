/**
 * A Temporal test server and the workflow bundle, for workflow tests whose activities are stubs:
 * no Postgres, no Chromium, seconds per case (test/integration/workflows/).
 */
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, makeTelemetryFilterString, Runtime, Worker } from '@temporalio/worker';
import { afterAll, beforeAll } from 'vitest';
import type { TrawlActivities } from '../../activities/index.js';
import { findOrBuildTemporalCli } from '../../scripts/temporal-cli.js';
import { buildWorkflowBundle, type WorkflowBundle } from '../../worker/create-worker.js';
import { JobKindAttribute, TeamIdAttribute, ZeroDataRetentionAttribute } from '../../workflows/search-attributes.js';

export interface WorkflowTestEnv {
  env: TestWorkflowEnvironment;
  workflowBundle: WorkflowBundle;
  /** Runs `body` with a worker of `activities` polling a task queue of its own. */
  withWorker<T>(activities: Partial<TrawlActivities>, body: (taskQueue: string) => Promise<T>): Promise<T>;
  teardown(): Promise<void>;
}

let queues = 0;

export async function startWorkflowTestEnv(): Promise<WorkflowTestEnv> {
  // Stub activities never heartbeat, so cancelled ones still complete; core warns about each.
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }) } },
  });
  const path = await findOrBuildTemporalCli({ log: () => undefined });
  const [env, workflowBundle] = await Promise.all([
    TestWorkflowEnvironment.createLocal({
      server: { executable: { type: 'existing-path', path }, searchAttributes: [TeamIdAttribute, JobKindAttribute, ZeroDataRetentionAttribute] },
    }),
    buildWorkflowBundle(),
  ]);
  return {
    env,
    workflowBundle,
    async withWorker(activities, body) {
      const taskQueue = `stub-activities-${process.pid}-${++queues}`;
      const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle, activities });
      return worker.runUntil(body(taskQueue));
    },
    teardown: () => env.teardown(),
  };
}

/** The file's environment: started before its tests, torn down after them; call the getter inside a test. */
export function workflowTestEnvForFile(): () => WorkflowTestEnv {
  let testEnv: WorkflowTestEnv | undefined;
  beforeAll(async () => {
    testEnv = await startWorkflowTestEnv();
  }, 180_000);
  afterAll(async () => {
    await testEnv?.teardown();
  });
  return () => testEnv!;
}
