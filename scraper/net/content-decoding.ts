/**
 * Undo Content-Encoding on a fully received body. The output cap guards against compression
 * bombs: a few kilobytes of gzip can expand to gigabytes.
 */
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { NonRetryablePageError } from '../../lib/errors.js';

/** What the http engine advertises; zstd needs a newer Node than 20. */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

const gunzip = promisify(zlib.gunzip);
const inflate = promisify(zlib.inflate);
const inflateRaw = promisify(zlib.inflateRaw);
const brotliDecompress = promisify(zlib.brotliDecompress);

export function contentTooLargeError(maxBytes: number): NonRetryablePageError {
  return new NonRetryablePageError('SCRAPE_CONTENT_TOO_LARGE', `Response body exceeds the ${maxBytes}-byte limit`, {
    details: { maxBytes },
  });
}

/** Some servers send raw DEFLATE under `deflate`; a zlib stream starts with a CM=8 header byte. */
function isZlibWrapped(data: Buffer): boolean {
  const first = data[0];
  return first !== undefined && (first & 0x0f) === 0x08;
}

async function decodeOne(encoding: string, data: Buffer, maxOutputLength: number): Promise<Buffer | undefined> {
  // Like browsers, tolerate a stream cut short instead of failing the whole page.
  const lenient = { finishFlush: zlib.constants.Z_SYNC_FLUSH, maxOutputLength };
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return gunzip(data, lenient);
    case 'deflate':
      return isZlibWrapped(data) ? inflate(data, lenient) : inflateRaw(data, lenient);
    case 'br':
      return brotliDecompress(data, { finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH, maxOutputLength });
    default:
      return undefined;
  }
}

/**
 * Decode `body` per a Content-Encoding header value (codings applied in order, so undone in
 * reverse). An unknown coding leaves the bytes as they are at that point.
 */
export async function decodeContent(body: Buffer, contentEncoding: string | undefined, maxBytes: number): Promise<Buffer> {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity')
    .reverse();
  let data = body;
  for (const coding of codings) {
    if (data.length === 0) break;
    try {
      const decoded = await decodeOne(coding, data, maxBytes);
      if (!decoded) break;
      data = decoded;
    } catch (err) {
      if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw contentTooLargeError(maxBytes);
      throw new NonRetryablePageError('SCRAPE_SITE_ERROR', `Could not decode the ${coding}-encoded response body`, {
        cause: err,
      });
    }
  }
  return data;
}
