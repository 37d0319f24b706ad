/**
 * The one place where error codes become HTTP statuses, and the one error middleware that renders
 * the envelope `{ success: false, error, code?, details? }`.
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ZodError } from 'zod';
import { TrawlError, type ErrorCode } from '../lib/errors.js';
import type { Logger } from '../lib/log.js';

export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  BAD_REQUEST_INVALID_JSON: 400,
  INVALID_URL: 400,
  // The URL names a host that does not resolve: the caller's to fix. As a 502 the official SDK,
  // which retries only 502, would repeat a request that cannot succeed; newer Firecrawl answers
  // it outside the 5xx range too (200 with success:false).
  SCRAPE_DNS_RESOLUTION_ERROR: 400,
  UNSUPPORTED_OPTION: 400,
  LLM_NOT_CONFIGURED: 400,
  // The model's own failures: it is a dependency of ours, not the client's doing.
  LLM_RATE_LIMITED: 503,
  LLM_UNAVAILABLE: 503,
  LLM_REQUEST_REJECTED: 502,
  LLM_AUTH_FAILED: 502,
  LLM_OUTPUT_INVALID: 422,
  INVALID_JSON_SCHEMA: 422,
  SCRAPE_PROMPT_INJECTION_DETECTED: 403,
  UNAUTHORIZED: 401,
  INSUFFICIENT_CREDITS: 402,
  FORBIDDEN: 403,
  SSRF_BLOCKED: 403,
  THREAT_PROTECTION_BLOCKED: 403,
  ROBOTS_DISALLOWED: 403,
  NOT_FOUND: 404,
  JOB_NOT_FOUND: 404,
  JOB_EXPIRED: 404,
  // A cache-only request (lockdown, minAge) with no copy to answer: Firecrawl's 404s.
  SCRAPE_LOCKDOWN_CACHE_MISS: 404,
  SCRAPE_NO_CACHED_DATA: 404,
  SCRAPE_TIMEOUT: 408,
  // A PDF with more pages than the timeout leaves time for; the client can retry with a longer one.
  SCRAPE_PDF_INSUFFICIENT_TIME_ERROR: 408,
  MAP_TIMEOUT: 408,
  JOB_TIMEOUT: 408,
  CONFLICT: 409,
  // A browser session that ended (Firecrawl's 410 for a destroyed one), or whose worker died.
  SESSION_ENDED: 410,
  SESSION_LOST: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  SCRAPE_UNSUPPORTED_FILE_ERROR: 415,
  // A file of a supported kind that cannot be read: corrupt, encrypted, a zip bomb, past a limit.
  PARSE_FAILED: 422,
  RATE_LIMITED: 429,
  CONCURRENCY_LIMITED: 429,
  SCRAPE_SSL_ERROR: 502,
  SCRAPE_SITE_ERROR: 502,
  SCRAPE_CONTENT_TOO_LARGE: 502,
  EXTRACT_NO_PAGES: 502,
  SEARCH_PROVIDER_ERROR: 502,
  SCRAPE_ACTION_ERROR: 500,
  SCRAPE_ALL_ENGINES_FAILED: 500,
  AGENT_START_FAILED: 500,
  // Said at submission: the caller gave a webhook address no delivery may reach.
  WEBHOOK_TARGET_BLOCKED: 400,
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

/** The shape of http-errors, which body-parser and the router throw. */
interface HttpLibraryError {
  type?: string;
  status?: unknown;
  statusCode?: unknown;
  expose?: boolean;
  message?: string;
}

/** Codes for the statuses http-errors carries; any other 4xx keeps its status with BAD_REQUEST. */
const CODE_BY_STATUS: Partial<Record<number, ErrorCode>> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
};

/**
 * A client error raised by a library before any handler ran, as the envelope: body-parser's
 * unsupported charset or content-encoding (415), undecodable gzip (400), aborted or mis-sized
 * bodies, and the router's malformed percent-escape in a path parameter (a URIError with status
 * 400 but no `expose`). Undefined for anything else, which stays a 500.
 */
function libraryClientError(err: unknown): { status: number; code: ErrorCode; error: string } | undefined {
  if (!err || typeof err !== 'object') return undefined;
  const e = err as HttpLibraryError;
  if (e.type === 'entity.parse.failed') {
    return { status: 400, code: 'BAD_REQUEST_INVALID_JSON', error: 'Bad request, malformed JSON' };
  }
  if (e.type === 'entity.too.large') return { status: 413, code: 'PAYLOAD_TOO_LARGE', error: 'Payload Too Large' };
  const status = typeof e.status === 'number' ? e.status : e.statusCode;
  if (typeof status !== 'number' || status < 400 || status > 499) return undefined;
  if (err instanceof URIError) {
    return { status: 400, code: 'BAD_REQUEST', error: 'Bad Request: malformed percent-encoding in the URL path' };
  }
  // `expose` is http-errors' own mark of a message written for the client.
  if (e.expose !== true) return undefined;
  const reason = STATUS_CODES[status] ?? 'Bad Request';
  return { status, code: CODE_BY_STATUS[status] ?? 'BAD_REQUEST', error: `${reason}: ${e.message ?? 'invalid request'}` };
}

export function errorHandler(log: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const clientError = libraryClientError(err);
    if (clientError) {
      res.status(clientError.status).json({ success: false, code: clientError.code, error: clientError.error });
      return;
    }
    if (err instanceof ZodError) {
      res.status(400).json({ success: false, code: 'BAD_REQUEST', error: 'Bad Request', details: err.issues });
      return;
    }
    if (err instanceof TrawlError) {
      const status = STATUS_BY_CODE[err.code] ?? 500;
      // For the request metrics: refusals are counted by their code (api/metrics.ts).
      res.locals.errorCode = err.code;
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

const PARSER_REFUSALS: Readonly<Record<string, { status: number; error: string }>> = {
  HPE_HEADER_OVERFLOW: { status: 431, error: 'Request Header Fields Too Large: the request line and headers must fit in 16 KB' },
  HPE_URI_TOO_LONG: { status: 414, error: 'URI Too Long' },
};

/**
 * Requests Node's HTTP parser refuses before Express sees them (a request line or headers over
 * 16 KB, malformed HTTP) get the JSON error envelope too, instead of Node's bare status line.
 */
export function answerParserErrorsWithEnvelope(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // A response already under way on this socket cannot be replaced by another.
    if (!socket.writable || (socket as { _httpMessage?: unknown })._httpMessage) return void socket.destroy(err);
    const { status, error } = PARSER_REFUSALS[err.code ?? ''] ?? { status: 400, error: 'Bad Request: malformed HTTP request' };
    const body = JSON.stringify({ success: false, code: 'BAD_REQUEST', error });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
