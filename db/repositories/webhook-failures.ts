/** Failed webhook deliveries, one row per attempt, listed by GET .../{id}/errors. */
import type { Db } from '../connect.js';

export interface WebhookFailure {
  jobId: string;
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
      job_id: failure.jobId,
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

export async function listWebhookFailures(db: Db, jobId: string, limit = 1000) {
  return db
    .selectFrom('webhook_failures')
    .select(['event', 'attempt', 'code', 'error', 'final', 'created_at'])
    .where('job_id', '=', jobId)
    .orderBy('created_at')
    .limit(limit)
    .execute();
}
