import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Logger } from '@temporalio/common';
import { bundleWorkflowCode, type NativeConnection, Worker } from '@temporalio/worker';
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
  /** A prebuilt bundle (buildWorkflowBundle; WORKFLOW_BUNDLE); otherwise workflows/index.ts is bundled at start. */
  workflowBundle?: WorkflowBundle;
}

/** `.ts` when run through tsx, `.js` when compiled to dist/ (npm run build). */
const MODULE_EXTENSION = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
export const WORKFLOWS_PATH = fileURLToPath(new URL(`../workflows/index${MODULE_EXTENSION}`, import.meta.url));
/** Bundled with the workflows: a prebuilt bundle must name them too (bundleWorkflowCode's workflowInterceptorModules). */
export const WORKFLOW_INTERCEPTOR_MODULES = [fileURLToPath(new URL(`../workflows/job-context${MODULE_EXTENSION}`, import.meta.url))];
/**
 * The bundle `npm run build` writes beside the compiled code, built from the same sources: a
 * compiled worker loads it unless WORKFLOW_BUNDLE names another. Run from sources, there is none.
 */
export const BUILT_WORKFLOW_BUNDLE = MODULE_EXTENSION === '.js' ? fileURLToPath(new URL('../workflow-bundle.js', import.meta.url)) : undefined;

export interface WorkflowBundle {
  code: string;
}

const silent: Logger = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

/**
 * The workflows and their interceptors, bundled as a worker bundles them at start. Bundling is
 * webpack over every workflow module, seconds of CPU: a run that starts many workers (the e2e
 * stacks) builds it once and hands each the file (WORKFLOW_BUNDLE). Tests may bundle interceptor
 * modules of their own with it.
 */
export async function buildWorkflowBundle(extraInterceptorModules: readonly string[] = []): Promise<WorkflowBundle> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: [...WORKFLOW_INTERCEPTOR_MODULES, ...extraInterceptorModules],
    logger: silent,
  });
  return { code };
}

/** A bundle written from buildWorkflowBundle (scripts/bundle-workflows.ts writes one). */
export async function readWorkflowBundle(path: string): Promise<WorkflowBundle> {
  return { code: await readFile(path, 'utf8') };
}

export async function createWorker(options: CreateWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    activities: options.activities,
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : { workflowsPath: WORKFLOWS_PATH }),
    maxConcurrentActivityTaskExecutions: options.maxConcurrentActivities ?? 32,
    // Synchronous scrapes' pages run as local activities (workflows/scrape.ts), beside and not
    // counted in the activity slots: the same bound, not the SDK's default of 100.
    maxConcurrentLocalActivityExecutions: options.maxConcurrentActivities ?? 32,
    // Eager dispatch hands the activities a workflow task schedules to the worker that ran it, so
    // with several workers one of them took nearly every page of a crawl (79 of 80 measured). From
    // the task queue, they go to whichever worker has a free slot.
    maxEagerActivityReservationsPerWorkflowTask: 0,
    // Pages in flight get time to finish on a graceful stop; a crash is covered by heartbeats.
    shutdownGraceTime: '20s',
    interceptors: { activity: [jobLogAttributes], ...(!options.workflowBundle && { workflowModules: WORKFLOW_INTERCEPTOR_MODULES }) },
  });
}

/** A worker's own task queue, `<task queue>-sessions-<host>-<pid>-<random>`: unique per process, readable in the Temporal UI. */
export function sessionTaskQueue(taskQueue: string): string {
  return `${taskQueue}-sessions-${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/**
 * The worker's own task queue, for the activities of the browser sessions it holds: only this
 * process polls it, so an activity sent there reaches the page in this process's memory. No
 * workflows run on it.
 */
export async function createSessionWorker(options: Pick<CreateWorkerOptions, 'connection' | 'namespace' | 'taskQueue' | 'activities'>): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    activities: options.activities,
    // A session runs one execute at a time; closes and holds are cheap.
    maxConcurrentActivityTaskExecutions: 256,
    shutdownGraceTime: '5s',
    interceptors: { activity: [jobLogAttributes] },
  });
}
