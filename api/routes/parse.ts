/**
 * POST /v2/parse: an uploaded file to a Document, as Firecrawl's parse endpoint. The file is stored
 * in Postgres and the parse runs as a scrape job whose activity reads it by id (activities/page/
 * fetch.ts), so credits, concurrency, retries and the Temporal UI are those of every page, and the
 * bytes never travel through a Temporal payload.
 */
import { randomUUID } from 'node:crypto';
import { Router, type RequestHandler, type Response } from 'express';
import { deleteParseUpload, findUploadByRef, insertParseUpload } from '../../db/repositories/parse-uploads.js';
import { sniffFile } from '../../scraper/files/sniff.js';
import type { AppDeps } from '../deps.js';
import { httpError } from '../errors.js';
import { authOf } from '../middleware/auth.js';
import { requireCredits } from '../middleware/credits.js';
import { guard } from '../middleware/guard.js';
import { multipartUpload, uploadOf, type UploadedPart } from '../middleware/multipart.js';
import { validatedBody } from '../middleware/validate.js';
import { PARSE_MAX_FILE_BYTES, parseRequestSchema, parseScrapeOptions, UPLOAD_REF } from '../schemas/parse.js';
import { runScrape } from './scrape.js';

type StoredUpload = UploadedPart & { id: string };


export function parseRoutes(deps: AppDeps): Router {
  const router = Router();
  const body = validatedBody(parseRequestSchema);
  const multipart = multipartUpload({ maxFileBytes: PARSE_MAX_FILE_BYTES, maxFieldBytes: deps.config.api.maxRequestBodyBytes });
  const stored = new WeakMap<Response, StoredUpload>();
  // A two-step upload (api/routes/parse-upload.ts): JSON with the reference, the bytes already stored.
  const byReference: RequestHandler = async (req, res, next) => {
    const { uploadRef, ...options } = (req.body ?? {}) as Record<string, unknown>;
    if (typeof uploadRef !== 'string' || !uploadRef) throw httpError('BAD_REQUEST', 'File is required');
    const upload = UPLOAD_REF.test(uploadRef) ? await findUploadByRef(deps.db, authOf(res).teamId, uploadRef) : undefined;
    if (!upload) throw httpError('BAD_REQUEST', 'Uploaded file is not available. Upload the file before parsing.');
    stored.set(res, { id: upload.id, data: upload.data, filename: upload.filename, mimeType: upload.contentType });
    req.body = options;
    next();
  };
  const source: RequestHandler = (req, res, next) => (req.is('multipart/form-data') ? multipart(req, res, next) : byReference(req, res, next));
  router.post('/v2/parse', ...guard(deps, 'scrape', 'scrape'), source, body, requireCredits(deps), async (req, res) => {
    const request = body.of(res);
    const reserved = stored.get(res);
    const file = reserved ?? uploadOf(res);
    // Refused before anything is stored or billed, as Firecrawl does (415).
    if (!sniffFile(file.data, { contentType: '', filename: file.filename })) {
      throw httpError('SCRAPE_UNSUPPORTED_FILE_ERROR', `Unsupported file type: ${file.mimeType || file.filename}`, {
        contentType: file.mimeType,
      });
    }
    const uploadId = reserved?.id ?? randomUUID();
    if (!reserved) {
      await insertParseUpload(deps.db, { id: uploadId, teamId: authOf(res).teamId, filename: file.filename, contentType: file.mimeType, data: file.data });
    }
    try {
      // Firecrawl's pseudo-URL for an upload: metadata.sourceURL and url name the file.
      const url = `file://local/${uploadId}/${encodeURIComponent(file.filename)}`;
      const options = parseScrapeOptions(request);
      const data = await runScrape(deps, req, res, { url, zeroDataRetention: request.zeroDataRetention, options, uploadId });
      res.json({ success: true, data });
    } finally {
      await deleteParseUpload(deps.db, uploadId);
    }
  });
  return router;
}
