/**
 * Every Temporal workflow and Schedule id Trawl makes, built here and nowhere else, so that they
 * read alike in the Temporal UI and in the rows that name them (`jobs.workflow_id`):
 *
 * | id | what |
 * |---|---|
 * | `<kind>-<jobId>` (`scrape-`, `crawl-`, `batch-`, `map-`, `browser-` …) | a job, a monitor target's job too; `browser-` is a live browser session |
 * | `<parent workflow id>-sub-<step>` | a sub-agent, under the agent that spawned it at that step |
 * | `monitor-<monitorId>` | a monitor's Schedule; its checks `monitor-<monitorId>-check-<start time>` |
 * | `monitor-<monitorId>-check-<checkId>` | a check started by `POST /v2/monitor/{id}/run` |
 * | `<task queue>-purge-expired` | the retention purge's Schedule; its runs `…-run-<start time>` |
 * | `params-preview-<uuid>` | a crawl params preview |
 *
 * Lint refuses a `workflowId` or `scheduleId` built from a template anywhere else.
 */
import type { JobKind } from '../db/schema.js';

const JOB_PREFIX: Record<JobKind, string> = {
  scrape: 'scrape',
  crawl: 'crawl',
  batch_scrape: 'batch',
  map: 'map',
  extract: 'extract',
  search: 'search',
  agent: 'agent',
  browser: 'browser',
};

export function jobWorkflowId(kind: JobKind, jobId: string): string {
  return `${JOB_PREFIX[kind]}-${jobId}`;
}

export function subAgentWorkflowId(parentWorkflowId: string, step: number): string {
  return `${parentWorkflowId}-sub-${step}`;
}

export function monitorScheduleId(monitorId: string): string {
  return `monitor-${monitorId}`;
}

/** Temporal appends each start's time to a Schedule's workflow id. */
export function scheduledCheckWorkflowId(monitorId: string): string {
  return `${monitorScheduleId(monitorId)}-check`;
}

export function manualCheckWorkflowId(monitorId: string, checkId: string): string {
  return `${monitorScheduleId(monitorId)}-check-${checkId}`;
}

export function purgeScheduleId(taskQueue: string): string {
  return `${taskQueue}-purge-expired`;
}

export function purgeRunWorkflowId(taskQueue: string): string {
  return `${purgeScheduleId(taskQueue)}-run`;
}

export function paramsPreviewWorkflowId(previewId: string): string {
  return `params-preview-${previewId}`;
}

