/** Failed webhook deliveries, one row per attempt, listed by GET .../{id}/errors. */
import type { Db } from '../connect.js';

export interface WebhookFailure {
  /** A job's id, or a monitor check's when `monitorCheck` is set. */
  jobId: string;
  monitorCheck?: boolean;
  deliveryId: string;
  attempt: number;
  event: string;
  code: string;
  error: string;
  final: boolean;
}

/** Idempotent per attempt: a retried write of the same attempt keeps the first. */
export async function recordWebhookFailure(db: Db, failure: WebhookFailure): Promise<void> {
  await db
    .insertInto('webhook_failures')
    .values({
      job_id: failure.monitorCheck ? null : failure.jobId,
      check_id: failure.monitorCheck ? failure.jobId : null,
      delivery_id: failure.deliveryId,
      attempt: failure.attempt,
      event: failure.event,
      code: failure.code,
      error: failure.error,
      final: failure.final,
    })
    .onConflict((oc) => oc.columns(['delivery_id', 'attempt']).doNothing())
    .execute();
}

/** A job's failed deliveries, or a monitor check's with `monitorCheck`. */
export async function listWebhookFailures(db: Db, jobId: string, { limit = 1000, monitorCheck = false } = {}) {
  return db
    .selectFrom('webhook_failures')
    .select(['event', 'attempt', 'code', 'error', 'final', 'created_at'])
    .where(monitorCheck ? 'check_id' : 'job_id', '=', jobId)
    .orderBy('created_at')
    .limit(limit)
    .execute();
}
