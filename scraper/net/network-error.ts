/**
 * Map a failed HTTP exchange to the scrape error a caller can act on: DNS and TLS failures will
 * not fix themselves, a refused or dropped connection might on the next attempt.
 */
import { NonRetryablePageError, PageError, TrawlError } from '../../lib/errors.js';

const DNS_CODES: ReadonlySet<string> = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NODATA', 'EAI_NONAME', 'EAI_FAIL']);

/** OpenSSL verification codes (CERT_HAS_EXPIRED, DEPTH_ZERO_SELF_SIGNED_CERT, ...) and Node's TLS/SSL codes. */
const TLS_CODE =
  /CERT|CRL|SIGNATURE|^UNABLE_TO_|^INVALID_CA$|^INVALID_PURPOSE$|^PATH_LENGTH_EXCEEDED$|^HOSTNAME_MISMATCH$|^ERR_SSL_|^ERR_TLS_/;

const CONNECTION_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_CLOSED',
]);

/** The first error code found on the error, its cause chain, or inside an AggregateError (happy eyeballs). */
export function errorCode(err: unknown, depth = 0): string | undefined {
  if (!err || typeof err !== 'object' || depth > 4) return undefined;
  const { code, cause, errors } = err as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string') return code;
  if (Array.isArray(errors)) {
    for (const inner of errors) {
      const found = errorCode(inner, depth + 1);
      if (found) return found;
    }
  }
  return errorCode(cause, depth + 1);
}

export function toPageError(err: unknown, url: URL): TrawlError {
  if (err instanceof TrawlError) return err;
  const code = errorCode(err) ?? 'UNKNOWN';
  const reason = err instanceof Error && err.message ? err.message : code;
  const details = { url: url.href, code };
  if (DNS_CODES.has(code)) {
    const message = `DNS resolution failed for ${url.hostname} (${code})`;
    return new NonRetryablePageError('SCRAPE_DNS_RESOLUTION_ERROR', message, { details, cause: err });
  }
  if (TLS_CODE.test(code)) {
    const message = `TLS error connecting to ${url.host}: ${reason}`;
    return new NonRetryablePageError('SCRAPE_SSL_ERROR', message, { details, cause: err });
  }
  if (CONNECTION_CODES.has(code)) {
    const message = `Connection to ${url.host} failed (${code}): ${reason}`;
    return new PageError('SCRAPE_SITE_ERROR', message, { details, cause: err });
  }
  if (code === 'UND_ERR_INVALID_ARG') {
    return new NonRetryablePageError('BAD_REQUEST', `Invalid request to ${url.host}: ${reason}`, { details, cause: err });
  }
  if (code.startsWith('HPE_')) {
    return new NonRetryablePageError('SCRAPE_SITE_ERROR', `Invalid HTTP response from ${url.host}: ${reason}`, {
      details,
      cause: err,
    });
  }
  return new PageError('SCRAPE_SITE_ERROR', `Request to ${url.host} failed: ${reason}`, { details, cause: err });
}
