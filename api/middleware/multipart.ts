/**
 * A multipart/form-data body with one file part, as POST /v2/parse takes it (Firecrawl's SDK sends
 * an `options` part holding JSON and a `file` part). Streamed through busboy with limits, so an
 * oversized file is cut off at the limit and refused, never buffered whole. The options become
 * `req.body` for the route's validatedBody; the file goes to `uploadOf(res)`.
 */
import busboy from 'busboy';
import type { RequestHandler, Response } from 'express';
import { httpError } from '../errors.js';

export interface UploadedPart {
  data: Buffer;
  filename: string;
  /** As the client declared it; the parser reads the bytes instead. */
  mimeType: string;
}

export interface MultipartLimits {
  maxFileBytes: number;
  /** For the options and the other fields together. */
  maxFieldBytes: number;
}

const uploads = new WeakMap<Response, UploadedPart>();
const SAFE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

export function uploadOf(res: Response): UploadedPart {
  const upload = uploads.get(res);
  if (!upload) throw new Error('uploadOf: read before the multipart middleware ran for this request');
  return upload;
}

export function multipartUpload(limits: MultipartLimits): RequestHandler {
  return (req, res, next) => {
    if (!req.is('multipart/form-data')) {
      next(httpError('BAD_REQUEST', 'File is required'));
      return;
    }
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: { files: 1, fileSize: limits.maxFileBytes, fields: 50, fieldSize: limits.maxFieldBytes, parts: 60 },
      });
    } catch (err) {
      next(httpError('BAD_REQUEST', `Bad Request: ${err instanceof Error ? err.message : String(err)}`));
      return;
    }
    const fields: Record<string, unknown> = {};
    let file: UploadedPart | undefined;
    let failure: Error | undefined;
    const fail = (err: Error) => {
      failure ??= err;
    };
    parser.on('field', (name, value, info) => {
      // A field named __proto__ would set the body's prototype rather than an option.
      if (!SAFE_NAME.test(name) || name === '__proto__') return fail(httpError('BAD_REQUEST', `Bad Request: invalid field name "${name.slice(0, 64)}"`));
      if (info.valueTruncated) return fail(httpError('PAYLOAD_TOO_LARGE', `The ${name} field is larger than ${limits.maxFieldBytes} bytes`));
      fields[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      if (name !== 'file' || file) {
        stream.resume();
        return fail(httpError('BAD_REQUEST', `Bad Request: unexpected file part "${name}"; send one part named "file"`));
      }
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => fail(httpError('PAYLOAD_TOO_LARGE', `File is larger than the ${limits.maxFileBytes / 1024 / 1024} MB limit`)));
      stream.on('close', () => {
        file = { data: Buffer.concat(chunks), filename: storable(info.filename ?? '').trim() || 'file', mimeType: storable(info.mimeType) };
      });
    });
    parser.on('filesLimit', () => fail(httpError('BAD_REQUEST', 'Bad Request: send one file per request')));
    parser.on('error', (err: Error) => {
      req.unpipe(parser);
      next(httpError('BAD_REQUEST', `Bad Request: malformed multipart body: ${err.message}`));
    });
    parser.on('close', () => {
      if (failure) return next(failure);
      if (!file) return next(httpError('BAD_REQUEST', 'File is required'));
      if (!file.data.length) return next(httpError('BAD_REQUEST', 'File is empty'));
      const body = optionsBody(fields);
      if (body instanceof Error) return next(body);
      req.body = body;
      uploads.set(res, file);
      next();
    });
    req.pipe(parser);
  };
}

/** Part headers are the client's bytes: Postgres text holds neither NUL nor an unpaired surrogate, nor should a name hold control characters. */
function storable(value: string): string {
  return (
    value
      .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
      // eslint-disable-next-line no-control-regex -- control characters are what this removes
      .replace(/[\u0000-\u001f\u007f]/g, '')
      .slice(0, 512)
  );
}

/**
 * The `options` part is the whole options object as JSON (the SDK's way); any other field is one
 * option, JSON when it parses as JSON (`formats`, `onlyMainContent=true`) and a string otherwise.
 */
function optionsBody(fields: Record<string, unknown>): Record<string, unknown> | Error {
  const { options, ...rest } = fields;
  let body: unknown = {};
  if (typeof options === 'string' && options.length) {
    try {
      body = JSON.parse(options);
    } catch {
      return httpError('BAD_REQUEST', 'Invalid options JSON');
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return httpError('BAD_REQUEST', 'Invalid options JSON');
  }
  const merged: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const [name, value] of Object.entries(rest)) merged[name] = fieldValue(String(value));
  return merged;
}

function fieldValue(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
