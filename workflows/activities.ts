/**
 * Activity proxies, declared once per timeout profile, with their retry policies as named constants.
 * Workflows import activity *types* only; the implementations live in activities/ on the workers.
 */
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { RetryPolicy } from '@temporalio/common';
import type { TrawlActivities } from '../activities/index.js';
import { WEBHOOK_RETRY_POLICY, WEBHOOK_START_TO_CLOSE_TIMEOUT } from '../lib/webhook-events.js';

/** Transient page failures get two more tries; everything we classified as final is not retried. */
export const PAGE_RETRY_POLICY: RetryPolicy = {
  initialInterval: '1s',
  backoffCoefficient: 2,
  maximumInterval: '30s',
  maximumAttempts: 3,
  nonRetryableErrorTypes: ['NonRetryablePageError'],
};

/** Headroom past the scrape deadline for storing the result before Temporal gives up on the attempt. */
const PAGE_GRACE_MS = 15_000;

/**
 * Page work: one attempt may run the whole scrape deadline; a worker that dies mid-page is
 * noticed by the missed heartbeat, not by the (long) start-to-close timeout.
 */
export function pageActivities(timeoutMs: number) {
  return proxyActivities<TrawlActivities>({
    startToCloseTimeout: timeoutMs + PAGE_GRACE_MS,
    heartbeatTimeout: '20s',
    retry: PAGE_RETRY_POLICY,
  });
}

/**
 * A synchronous scrape's page (workflows/scrape.ts), run as a local activity: in the worker that
 * runs the workflow's first task, with no activity task to schedule, dispatch and report back
 * (a static scrape's overhead 112 → 74 ms at a load average of 5, bench/RESULTS.md). A local activity cannot heartbeat:
 * a worker that dies mid-page is noticed when its workflow task times out (10 s), and the next
 * worker runs the page again from its first attempt; the workflow's execution timeout bounds that.
 */
export function localPageActivities(timeoutMs: number) {
  return proxyLocalActivities<TrawlActivities>({
    startToCloseTimeout: timeoutMs + PAGE_GRACE_MS,
    retry: PAGE_RETRY_POLICY,
  });
}

/** Database bookkeeping: quick, and retried until the database answers. */
export const BOOKKEEPING_RETRY_POLICY: RetryPolicy = {
  initialInterval: '500ms',
  backoffCoefficient: 2,
  maximumInterval: '30s',
};

export const bookkeepingActivities = proxyActivities<TrawlActivities>({
  startToCloseTimeout: '30s',
  retry: BOOKKEEPING_RETRY_POLICY,
});

/**
 * Frontier slices (activities/crawl-slice.ts): an attempt runs its time slice plus one page's
 * deadline. Retried without a limit, as bookkeeping is: a page failure is handled inside the
 * slice, so what fails a slice is its worker or the database, and a retry hands the page the dead
 * attempt had in flight back to the workflow, where the page retry policy bounds it.
 */
export function sliceActivities(sliceMs: number, pageTimeoutMs: number) {
  return proxyActivities<TrawlActivities>({
    startToCloseTimeout: sliceMs + pageTimeoutMs + PAGE_GRACE_MS,
    heartbeatTimeout: '20s',
    retry: BOOKKEEPING_RETRY_POLICY,
  });
}

/** Seeding a crawl reads robots.txt and sitemaps: minutes at most, heartbeating throughout. */
export const crawlKickoffActivities = proxyActivities<TrawlActivities>({
  startToCloseTimeout: '5m',
  heartbeatTimeout: '20s',
  retry: PAGE_RETRY_POLICY,
});

/** Webhook delivery: its own retry policy, so a slow receiver never holds back page work. */
export const webhookActivities = proxyActivities<TrawlActivities>({
  startToCloseTimeout: WEBHOOK_START_TO_CLOSE_TIMEOUT,
  retry: WEBHOOK_RETRY_POLICY,
});

/** Maintenance (the retention purge): long batched deletes, retried until the database answers. */
export const maintenanceActivities = proxyActivities<TrawlActivities>({
  startToCloseTimeout: '10m',
  retry: BOOKKEEPING_RETRY_POLICY,
});

/** A model call outside a page: its own retries (LLM_RATE_LIMITED, LLM_UNAVAILABLE) are in llm/; these add a few more. */
export const modelActivities = proxyActivities<TrawlActivities>({
  startToCloseTimeout: '2m',
  retry: PAGE_RETRY_POLICY,
});
