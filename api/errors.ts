/**
 * The one place where error codes become HTTP statuses, and the one error middleware that renders
 * the envelope `{ success: false, error, code?, details? }`.
 */
import { randomUUID } from 'node:crypto';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ZodError } from 'zod';
import { TrawlError, type ErrorCode } from '../lib/errors.js';
import type { Logger } from '../lib/log.js';

export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  BAD_REQUEST_INVALID_JSON: 400,
  INVALID_URL: 400,
  UNSUPPORTED_OPTION: 400,
  LLM_NOT_CONFIGURED: 400,
  UNAUTHORIZED: 401,
  INSUFFICIENT_CREDITS: 402,
  FORBIDDEN: 403,
  SSRF_BLOCKED: 403,
  ROBOTS_DISALLOWED: 403,
  NOT_FOUND: 404,
  JOB_NOT_FOUND: 404,
  SCRAPE_TIMEOUT: 408,
  // A PDF with more pages than the timeout leaves time for; the client can retry with a longer one.
  SCRAPE_PDF_INSUFFICIENT_TIME_ERROR: 408,
  MAP_TIMEOUT: 408,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  SCRAPE_UNSUPPORTED_FILE_ERROR: 415,
  RATE_LIMITED: 429,
  CONCURRENCY_LIMITED: 429,
  SCRAPE_DNS_RESOLUTION_ERROR: 502,
  SCRAPE_SSL_ERROR: 502,
  SCRAPE_SITE_ERROR: 502,
  SCRAPE_CONTENT_TOO_LARGE: 502,
  SCRAPE_ACTION_ERROR: 500,
  SCRAPE_ALL_ENGINES_FAILED: 500,
  WEBHOOK_TARGET_BLOCKED: 403,
  WEBHOOK_DELIVERY_FAILED: 502,
  SERVICE_UNAVAILABLE: 503,
  UNKNOWN_ERROR: 500,
};

/** Shorthand for the errors handlers raise themselves. */
export function httpError(code: ErrorCode, message: string, details?: unknown): TrawlError {
  return new TrawlError(code, message, { details });
}

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(httpError('NOT_FOUND', `Not Found: ${req.method} ${req.path}`));
};

interface BodyParserError {
  type?: string;
}

export function errorHandler(log: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const parserType = (err as BodyParserError | undefined)?.type;
    if (parserType === 'entity.parse.failed') {
      res.status(400).json({ success: false, code: 'BAD_REQUEST_INVALID_JSON', error: 'Bad request, malformed JSON' });
      return;
    }
    if (parserType === 'entity.too.large') {
      res.status(413).json({ success: false, code: 'PAYLOAD_TOO_LARGE', error: 'Payload Too Large' });
      return;
    }
    if (err instanceof ZodError) {
      res.status(400).json({ success: false, code: 'BAD_REQUEST', error: 'Bad Request', details: err.issues });
      return;
    }
    if (err instanceof TrawlError) {
      const status = STATUS_BY_CODE[err.code] ?? 500;
      res.status(status).json({
        success: false,
        code: err.code,
        error: err.message,
        ...(err.details !== undefined && { details: err.details }),
      });
      return;
    }
    const errorId = randomUUID();
    log.error({ err, errorId, method: req.method, path: req.path }, 'api: unhandled error');
    res.status(500).json({
      success: false,
      code: 'UNKNOWN_ERROR',
      error: `An unexpected error occurred. Please contact support with this exception ID: ${errorId}`,
    });
  };
}
