/**
 * Waiting on a synchronous job's workflow (scrape, map): the API answers by the job's deadline
 * even when no worker does, and a workflow failure becomes the error code the caller expects.
 */
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ActivityFailure, TimeoutFailure } from '@temporalio/common';
import type { Response } from 'express';
import { setJobStatus } from '../db/repositories/jobs.js';
import { fromFailure, TrawlError } from '../lib/errors.js';
import type { AppDeps } from './deps.js';

/** How long after a job's deadline the API stops waiting for a worker that went silent. */
export const DEADLINE_GRACE_MS = 10_000;

/**
 * The error to answer for a failed workflow: our own error when the failure chain carries one,
 * `timedOut()` when Temporal timed the workflow or its activity out, else the error itself.
 */
export function workflowFailure(err: unknown, timedOut: () => TrawlError): Error {
  const known = fromFailure(err);
  if (known) return known;
  if (err instanceof TrawlError) return err;
  const cause = err instanceof WorkflowFailedError ? err.cause : undefined;
  if (cause instanceof TimeoutFailure || (cause instanceof ActivityFailure && cause.cause instanceof TimeoutFailure)) {
    return timedOut();
  }
  return err instanceof Error ? err : new Error(String(err));
}

/** `work`, unless `deadline` passes first: then `onExpire` runs and `expired()` is thrown. */
export async function withDeadline<T>(
  work: Promise<T>,
  deadline: number,
  onExpire: () => unknown,
  expired: () => TrawlError,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onExpire();
      reject(expired());
    }, Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

export interface SyncJob {
  jobId: string;
  handle: WorkflowHandle;
  /** The job's own deadline (epoch ms); the API gives up DEADLINE_GRACE_MS after it. */
  deadline: number;
  /** Settles as soon as the result is stored, if that can be known before the workflow reports. */
  stored?: Promise<unknown>;
  /** The error when no worker finished in time (the workflow is then cancelled). */
  expired: () => TrawlError;
  /** The error when Temporal timed the workflow or its activity out. */
  timedOut: () => TrawlError;
}

/**
 * Waits for a synchronous job (scrape, map) the request is answered with. On any failure the job
 * is marked failed with the error the caller gets, so its row never stays running.
 */
export async function awaitSyncJob(deps: AppDeps, res: Response, job: SyncJob): Promise<void> {
  const result = job.handle.result();
  try {
    await withDeadline(
      job.stored ? Promise.race([job.stored, result]) : result,
      job.deadline + DEADLINE_GRACE_MS,
      () => job.handle.cancel().catch(() => undefined),
      job.expired,
    );
  } catch (err) {
    const failure = workflowFailure(err, job.timedOut);
    await setJobStatus(deps.db, job.jobId, 'failed', failure.message);
    // Slots free as the team's pages finish, usually within seconds.
    if (failure instanceof TrawlError && failure.code === 'CONCURRENCY_LIMITED') res.set('Retry-After', '1');
    throw failure;
  }
}
