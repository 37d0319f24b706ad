/**
 * The one way the API starts a job: the idempotency key, the job row written before the response
 * (so a status read right after never 404s), and the workflow start with its business id, task
 * queue and search attributes. A start that fails leaves a failed job, not a phantom running one.
 */
import { randomUUID } from 'node:crypto';
import type { WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import type { Request } from 'express';
import { z } from 'zod';
import { findJobByIdempotencyKey, insertJob, setJobStatus } from '../db/repositories/jobs.js';
import type { JobKind } from '../db/schema.js';
import { JobKindAttribute, TeamIdAttribute, ZeroDataRetentionAttribute } from '../workflows/search-attributes.js';
import type { AppDeps } from './deps.js';
import { httpError } from './errors.js';
import { jobWorkflowId } from '../lib/workflow-ids.js';

const idempotencyKeySchema = z.uuid();

/** How long a workflow start may take before the request gets its 503. */
const START_DEADLINE_MS = 5_000;

/** Reads `x-idempotency-key`; a reused key is a 409 before anything is created. */
export async function checkIdempotencyKey(deps: AppDeps, req: Request, teamId: string): Promise<string | null> {
  const raw = req.get('x-idempotency-key');
  if (raw === undefined || raw === '') return null;
  if (!idempotencyKeySchema.safeParse(raw).success) {
    throw httpError('BAD_REQUEST', 'Bad Request: x-idempotency-key must be a UUID');
  }
  if (await findJobByIdempotencyKey(deps.db, teamId, raw)) {
    throw httpError('CONFLICT', 'Idempotency key already used');
  }
  return raw;
}

/** Workflow ids carry the job kind, so the Temporal UI and `temporal workflow list` read at a glance. */
/**
 * Options every workflow start and signal-with-start of a job shares: the task queue the workers
 * poll and the search attributes the UI filters by.
 */
export function jobWorkflowOptions(deps: AppDeps, teamId: string, kind: JobKind, zeroDataRetention = false) {
  return {
    taskQueue: deps.config.temporal.taskQueue,
    typedSearchAttributes: [
      { key: TeamIdAttribute, value: teamId },
      { key: JobKindAttribute, value: kind },
      ...(zeroDataRetention ? [{ key: ZeroDataRetentionAttribute, value: true }] : []),
    ],
  };
}

/** Every job workflow takes one input object. */
export type JobWorkflow<I, R> = (input: I) => Promise<R>;

/** The job row's fields the caller decides. */
export interface NewJob {
  kind: JobKind;
  teamId: string;
  /** The key that started the job; null with AUTH=none. */
  apiKeyId: string | null;
  url: string | null;
  /** Stored with the job as given, less any `sealedProxy`; status and active-crawl reads show it. */
  options: Record<string, unknown>;
  idempotencyKey?: string | null;
  /** Known at start, e.g. a limit lowered to the credits left. */
  warning?: string;
  /** See insertJob; only for a job whose response waits for its result. */
  relaxed?: boolean;
  /** A zero-data-retention job (api/zero-data-retention.ts). */
  zeroDataRetention?: boolean;
  /** The request that starts the job: its API version is kept for GET /v2/team/activity. */
  request: Request;
  /** An agent run's thread; its turn is numbered by the run's `admit` (api/agent/threads.ts). */
  threadId?: string;
}

export interface JobStart<I, R> extends NewJob {
  workflow: JobWorkflow<I, R>;
  /** Built once the job id is known. NoInfer: the workflow alone decides the input type. */
  input: (jobId: string) => NoInfer<I>;
  workflowExecutionTimeoutMs?: number;
  /**
   * Runs after the row is written and before the workflow starts (a batch's pages, a listener for
   * the result). If it throws, the job is failed like a refused start.
   */
  beforeStart?: (jobId: string) => unknown;
  /**
   * A limit that counts the team's running jobs of this kind, checked with this job's row already
   * written, so two requests at once cannot both pass it. Its refusal (a 4xx) is the response,
   * and the row is failed with it.
   */
  admit?: (jobId: string) => Promise<void>;
}

export interface StartedJob<I, R> {
  jobId: string;
  handle: WorkflowHandleWithFirstExecutionRunId<JobWorkflow<I, R>>;
}

/** Writes the job row and starts its workflow; a refused start is a 503 and a failed job. */
export async function startJob<I, R>(deps: AppDeps, start: JobStart<I, R>): Promise<StartedJob<I, R>> {
  const jobId = randomUUID();
  const workflowId = jobWorkflowId(start.kind, jobId);
  await insertRunningJob(deps, jobId, workflowId, start);
  try {
    await start.admit?.(jobId);
  } catch (err) {
    await setJobStatus(deps.db, jobId, 'failed', err instanceof Error ? err.message : String(err));
    throw err;
  }
  try {
    await start.beforeStart?.(jobId);
    // A Temporal that does not answer is a prompt 503, not a client left waiting on gRPC retries.
    const handle = await deps.temporal.connection.withDeadline(Date.now() + START_DEADLINE_MS, () =>
      deps.temporal.workflow.start(start.workflow, {
        workflowId,
        args: [start.input(jobId)],
        ...jobWorkflowOptions(deps, start.teamId, start.kind, start.zeroDataRetention),
        ...(start.workflowExecutionTimeoutMs !== undefined && {
          workflowExecutionTimeout: start.workflowExecutionTimeoutMs,
        }),
      }),
    );
    deps.metrics?.jobStarted(start.kind);
    deps.log.info({ jobId, workflowId, teamId: start.teamId, kind: start.kind }, 'job: started');
    return { jobId, handle };
  } catch (err) {
    await setJobStatus(deps.db, jobId, 'failed', err instanceof Error ? err.message : String(err));
    deps.log.warn({ err, jobId, workflowId, teamId: start.teamId, kind: start.kind }, 'api: job could not be started');
    throw httpError('SERVICE_UNAVAILABLE', 'Service Unavailable: the job could not be started, try again');
  }
}

async function insertRunningJob(
  deps: AppDeps,
  jobId: string,
  workflowId: string,
  job: NewJob,
): Promise<void> {
  try {
    await insertJob(
      deps.db,
      {
        id: jobId,
        team_id: job.teamId,
        kind: job.kind,
        status: 'scraping',
        url: job.url,
        // A caller's sealed proxy (lib/caller-proxy.ts), at any depth (a search's scrapeOptions), is the workflow's only.
        options: JSON.stringify(job.options, (key, value: unknown) => (key === 'sealedProxy' ? undefined : value)),
        workflow_id: workflowId,
        idempotency_key: job.idempotencyKey ?? null,
        api_key_id: job.apiKeyId,
        zero_data_retention: job.zeroDataRetention ?? false,
        api_version: job.request.path.startsWith('/v1/') ? 'v1' : 'v2',
        thread_id: job.threadId ?? null,
        warning: job.warning ?? null,
        updated_at: new Date(),
        expires_at: new Date(Date.now() + deps.config.results.retentionHours * 3_600_000),
      },
      { relaxed: job.relaxed },
    );
  } catch (err) {
    // 23505: unique_violation on (team, idempotency key): two requests raced with one key.
    if ((err as { code?: string }).code === '23505') throw httpError('CONFLICT', 'Idempotency key already used');
    throw err;
  }
}
