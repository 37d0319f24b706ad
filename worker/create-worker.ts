import { fileURLToPath } from 'node:url';
import { type NativeConnection, Worker } from '@temporalio/worker';
import type { TrawlActivities } from '../activities/index.js';
import { jobLogAttributes } from './telemetry.js';

export interface CreateWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  activities: TrawlActivities;
  /**
   * Concurrent activity executions. Browser pages are bounded separately by the browser pool,
   * so plain-HTTP pages are not held back by the browser limit.
   * @default 32
   */
  maxConcurrentActivities?: number;
  /** A prebuilt bundle (tests build one once); otherwise workflows/index.ts is bundled at start. */
  workflowBundle?: { code: string };
}

export const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));
/** Bundled with the workflows: a prebuilt bundle must name them too (bundleWorkflowCode's workflowInterceptorModules). */
export const WORKFLOW_INTERCEPTOR_MODULES = [fileURLToPath(new URL('../workflows/job-context.ts', import.meta.url))];

export async function createWorker(options: CreateWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    activities: options.activities,
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : { workflowsPath: WORKFLOWS_PATH }),
    maxConcurrentActivityTaskExecutions: options.maxConcurrentActivities ?? 32,
    // Eager dispatch hands the activities a workflow task schedules to the worker that ran it, so
    // with several workers one of them took nearly every page of a crawl (79 of 80 measured). From
    // the task queue, they go to whichever worker has a free slot.
    maxEagerActivityReservationsPerWorkflowTask: 0,
    // Pages in flight get time to finish on a graceful stop; a crash is covered by heartbeats.
    shutdownGraceTime: '20s',
    interceptors: { activity: [jobLogAttributes], ...(!options.workflowBundle && { workflowModules: WORKFLOW_INTERCEPTOR_MODULES }) },
  });
}
