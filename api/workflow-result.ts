/**
 * Waiting on a synchronous job's workflow (scrape, map): the API answers by the job's deadline
 * even when no worker does, and a workflow failure becomes the error code the caller expects.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, TimeoutFailure } from '@temporalio/common';
import { fromFailure, TrawlError } from '../lib/errors.js';

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
