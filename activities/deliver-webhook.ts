import { createHmac } from 'node:crypto';
import { Context, log } from '@temporalio/activity';
import type { ApplicationFailure } from '@temporalio/common';
import { errors as undiciErrors, request, type Dispatcher } from 'undici';
import type { Db } from '../db/connect.js';
import { findDocument } from '../db/repositories/documents.js';
import { findCheckPage } from '../db/repositories/monitors.js';
import { recordWebhookFailure } from '../db/repositories/webhook-failures.js';
import { findWebhookSecret } from '../db/repositories/webhook-secrets.js';
import { fromFailure, NonRetryablePageError, PageError, toApplicationFailure, TrawlError } from '../lib/errors.js';
import { WEBHOOK_RETRY_POLICY, webhookEventType, type DeliverWebhookInput, type WebhookPayload } from '../lib/webhook-events.js';
import { addressPolicyFor } from '../scraper/net/address-policy.js';
import { guardedDispatcher } from '../scraper/net/guarded-dispatcher.js';
import type { ActivityDeps } from './deps.js';
import { CONNECTION_HEADERS } from '../scraper/net/connection-headers.js';

/** Firecrawl's per-delivery timeout for v1/v2 jobs; WEBHOOK_START_TO_CLOSE_TIMEOUT leaves room for it. */
const REQUEST_TIMEOUT_MS = 10_000;

/** Receivers answer with a few bytes; past this much the connection is closed rather than drained. */
const MAX_DRAINED_BYTES = 64 * 1024;


/**
 * Non-2xx answers that say "try later". Any other (3xx, most 4xx) means the receiver understood
 * and refused this request: the same bytes would be refused again, and every retry holds back
 * the job's later events, so those fail at once.
 */
/**
 * Every failed attempt is written where the user reads the job's errors; a failure to write it
 * must not turn a delivery failure into another kind of error, so it is only logged.
 */
async function recordAttemptFailure(db: Db, input: DeliverWebhookInput, attempt: number, failure: ApplicationFailure): Promise<void> {
  const code = fromFailure(failure)?.code ?? 'WEBHOOK_DELIVERY_FAILED';
  const final = failure.nonRetryable || attempt >= (WEBHOOK_RETRY_POLICY.maximumAttempts ?? Infinity);
  await recordWebhookFailure(db, {
    jobId: input.jobId,
    monitorCheck: input.jobKind === 'monitor',
    deliveryId: input.deliveryId,
    attempt,
    event: webhookEventType(input.jobKind, input.event),
    code,
    error: failure.message,
    final,
  }).catch((err: unknown) => log.warn('webhook: could not record a failed delivery', { jobId: input.jobId, error: String(err) }));
}

function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

async function payloadData(db: Db, input: DeliverWebhookInput): Promise<Record<string, unknown>[]> {
  if (input.event !== 'page') return input.data ?? [];
  if (!input.documentId) throw new NonRetryablePageError('BAD_REQUEST', 'A page webhook needs a documentId');
  if (input.jobKind === 'monitor') return [await monitorPageData(db, input.documentId)];
  const row = await findDocument(db, input.documentId);
  if (!row?.document || row.team_id !== input.teamId) {
    throw new NonRetryablePageError('NOT_FOUND', `Document ${input.documentId} for the page webhook was not found`, {
      details: { documentId: input.documentId },
    });
  }
  return [row.document];
}

/** Firecrawl's monitor.page item: the page's result in the check, with its diff and any judgment. */
async function monitorPageData(db: Db, pageId: string): Promise<Record<string, unknown>> {
  const page = await findCheckPage(db, pageId);
  if (!page) throw new NonRetryablePageError('NOT_FOUND', `Monitor check page ${pageId} for the page webhook was not found`);
  const judgment = page.judgment as { meaningful?: boolean } | null;
  const diff = page.diff as { text?: string } | null;
  return {
    monitorId: page.monitor_id,
    checkId: page.check_id,
    targetId: page.target_id,
    url: page.url,
    status: page.status,
    statusCode: page.status_code,
    previousScrapeId: page.previous_scrape_id,
    currentScrapeId: page.current_scrape_id,
    diff: diff?.text !== undefined ? { text: diff.text } : null,
    error: page.error,
    isMeaningful: judgment?.meaningful ?? null,
    judgment,
  };
}

function requestHeaders(user: Record<string, string>, body: Buffer, secret: string | null): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const [name, value] of Object.entries(user)) {
    const key = name.toLowerCase();
    if (!CONNECTION_HEADERS.has(key)) headers[key] = value;
  }
  // Set last, so a user header of the same name cannot stand in for the real signature.
  if (secret) headers['x-firecrawl-signature'] = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  return headers;
}

function findTrawlError(err: unknown): TrawlError | undefined {
  let current = err;
  for (let depth = 0; current && depth < 5; depth++) {
    if (current instanceof TrawlError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Messages and details name the host only: webhook URLs often carry tokens in their path or query. */
function deliveryError(err: unknown, url: URL, timedOut: boolean): TrawlError {
  const details = { host: url.host };
  if (timedOut) {
    return new PageError('WEBHOOK_DELIVERY_FAILED', `Webhook receiver ${url.host} did not answer within ${REQUEST_TIMEOUT_MS} ms`, {
      details,
    });
  }
  if (findTrawlError(err)?.code === 'SSRF_BLOCKED') {
    return new NonRetryablePageError(
      'WEBHOOK_TARGET_BLOCKED',
      `Webhook target ${url.host} is not a public address; set ALLOW_PRIVATE_NETWORK=true to deliver webhooks to private networks`,
      { details, cause: err },
    );
  }
  const reason = err instanceof Error ? err.message : String(err);
  // A header value undici will never send (e.g. one with a line break) fails every attempt alike.
  if (err instanceof undiciErrors.InvalidArgumentError) {
    return new NonRetryablePageError('WEBHOOK_DELIVERY_FAILED', `Invalid webhook request: ${reason}`, { details, cause: err });
  }
  return new PageError('WEBHOOK_DELIVERY_FAILED', `Webhook delivery to ${url.host} failed: ${reason}`, { details, cause: err });
}

async function post(
  url: URL,
  headers: Record<string, string>,
  body: Buffer,
  dispatcher: Dispatcher,
  cancel: AbortSignal,
): Promise<number> {
  const timeout = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  const signal = AbortSignal.any([cancel, timeout]);
  try {
    const response = await request(url, { method: 'POST', headers, body, dispatcher, signal });
    // The answer was given; its body only needs draining so the connection can be reused.
    await response.body.dump({ limit: MAX_DRAINED_BYTES, signal }).catch(() => undefined);
    return response.statusCode;
  } catch (err) {
    throw deliveryError(err, url, timeout.aborted);
  }
}

export function createDeliverWebhookActivity(deps: Pick<ActivityDeps, 'db' | 'allowPrivateNetwork'>) {
  const dispatcher = guardedDispatcher({ policy: addressPolicyFor(deps.allowPrivateNetwork), skipTlsVerification: false });

  return async function deliverWebhook(input: DeliverWebhookInput): Promise<{ status: number }> {
    const ctx = Context.current();
    try {
      const url = new URL(input.webhook.url);
      const payload: WebhookPayload = {
        success: input.success ?? (input.event !== 'failed' && input.event !== 'cancelled'),
        type: webhookEventType(input.jobKind, input.event),
        id: input.jobId,
        webhookId: input.deliveryId,
        data: await payloadData(deps.db, input),
        ...(input.error !== undefined && { error: input.error }),
        metadata: input.webhook.metadata,
      };
      // Signed and sent as these exact bytes: receivers verify the HMAC over the raw body.
      const body = Buffer.from(JSON.stringify(payload));
      const secret = await findWebhookSecret(deps.db, input.teamId);
      const status = await post(url, requestHeaders(input.webhook.headers, body, secret), body, dispatcher, ctx.cancellationSignal);
      if (status < 200 || status >= 300) {
        const ErrorClass = isRetryableStatus(status) ? PageError : NonRetryablePageError;
        throw new ErrorClass('WEBHOOK_DELIVERY_FAILED', `Webhook receiver ${url.host} answered ${status}`, {
          details: { host: url.host, status },
        });
      }
      return { status };
    } catch (err) {
      // The signal's reason is Temporal's CancelledFailure, which reports the attempt as cancelled.
      if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason;
      const failure = toApplicationFailure(err);
      await recordAttemptFailure(deps.db, input, ctx.info.attempt, failure);
      throw failure;
    }
  };
}
