/**
 * One error hierarchy for the whole service. Errors are grouped by how the runtime reacts to them
 * (retry or not), and each carries the wire `code` that `api/errors.ts` maps to an HTTP status.
 * The class name doubles as the Temporal failure `type`, so retry policies can list classes.
 */
import { ApplicationFailure } from '@temporalio/common';

export type ErrorCode =
  | 'BAD_REQUEST'
  | 'BAD_REQUEST_INVALID_JSON'
  | 'INVALID_URL'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'JOB_NOT_FOUND'
  | 'JOB_EXPIRED'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'INSUFFICIENT_CREDITS'
  | 'RATE_LIMITED'
  | 'CONCURRENCY_LIMITED'
  | 'UNSUPPORTED_OPTION'
  | 'LLM_NOT_CONFIGURED'
  | 'LLM_RATE_LIMITED'
  | 'LLM_UNAVAILABLE'
  | 'LLM_REQUEST_REJECTED'
  | 'LLM_AUTH_FAILED'
  | 'LLM_OUTPUT_INVALID'
  | 'INVALID_JSON_SCHEMA'
  | 'SCRAPE_PROMPT_INJECTION_DETECTED'
  | 'SSRF_BLOCKED'
  | 'SCRAPE_TIMEOUT'
  | 'MAP_TIMEOUT'
  | 'JOB_TIMEOUT'
  | 'EXTRACT_NO_PAGES'
  | 'SEARCH_PROVIDER_ERROR'
  | 'THREAT_PROTECTION_BLOCKED'
  | 'AGENT_START_FAILED'
  | 'SCRAPE_DNS_RESOLUTION_ERROR'
  | 'SCRAPE_SSL_ERROR'
  | 'SCRAPE_SITE_ERROR'
  | 'SCRAPE_ACTION_ERROR'
  | 'SCRAPE_UNSUPPORTED_FILE_ERROR'
  | 'PARSE_FAILED'
  | 'SCRAPE_PDF_INSUFFICIENT_TIME_ERROR'
  | 'SCRAPE_CONTENT_TOO_LARGE'
  | 'SCRAPE_LOCKDOWN_CACHE_MISS'
  | 'SCRAPE_NO_CACHED_DATA'
  | 'SCRAPE_ALL_ENGINES_FAILED'
  | 'ROBOTS_DISALLOWED'
  | 'WEBHOOK_TARGET_BLOCKED'
  | 'WEBHOOK_DELIVERY_FAILED'
  | 'SESSION_ENDED'
  | 'SESSION_LOST'
  | 'SERVICE_UNAVAILABLE'
  | 'UNKNOWN_ERROR';

export interface TrawlErrorOptions {
  details?: unknown;
  cause?: unknown;
}

export class TrawlError extends Error {
  readonly code: ErrorCode;
  readonly details?: unknown;
  /** Whether Temporal may retry the operation that threw this. */
  readonly retryable: boolean = false;

  constructor(code: ErrorCode, message: string, options: TrawlErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.details = options.details;
  }
}

/** A page-level failure that may succeed on another attempt (connection reset, 5xx from a proxy). */
export class PageError extends TrawlError {
  override readonly retryable = true;
}

/** A page-level failure that no retry will fix: bad URL, blocked target, timeout, unsupported content. */
export class NonRetryablePageError extends TrawlError {}

/** A browser session whose worker stopped: its page lived in that process only. */
export function sessionLostError(): NonRetryablePageError {
  return new NonRetryablePageError('SESSION_LOST', 'The browser session was lost: the worker holding it stopped');
}

interface FailureDetails {
  code: ErrorCode;
  details?: unknown;
}

/** Activity boundary: turn any thrown value into an ApplicationFailure that keeps our code. */
export function toApplicationFailure(err: unknown): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;
  if (err instanceof TrawlError) {
    const details: FailureDetails = { code: err.code, details: err.details };
    return ApplicationFailure.create({
      type: err.name,
      message: err.message,
      nonRetryable: !err.retryable,
      details: [details],
      cause: err.cause instanceof Error ? err.cause : undefined,
    });
  }
  const message = err instanceof Error ? err.message : String(err);
  return ApplicationFailure.create({ type: 'UnknownError', message, nonRetryable: false });
}

/**
 * Workflow and client boundary: find our error inside a Temporal failure chain
 * (WorkflowFailedError → ActivityFailure → ApplicationFailure) and rebuild it.
 */
export function fromFailure(err: unknown): TrawlError | undefined {
  let current: unknown = err;
  for (let depth = 0; current && depth < 8; depth++) {
    if (current instanceof TrawlError) return current;
    if (current instanceof ApplicationFailure) {
      const first = current.details?.[0] as FailureDetails | undefined;
      if (first && typeof first.code === 'string') {
        return new TrawlError(first.code, current.message, { details: first.details });
      }
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** An error's first line: Playwright's and Chromium's messages go on with call logs and stacks. */
export function firstLineOf(err: unknown): string {
  return err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err);
}
