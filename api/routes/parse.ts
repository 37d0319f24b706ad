/**
 * POST /v2/parse: an uploaded file to a Document, as Firecrawl's parse endpoint. The file is stored
 * in Postgres and the parse runs as a scrape job whose activity reads it by id (activities/page/
 * fetch.ts), so credits, concurrency, retries and the Temporal UI are those of every page, and the
 * bytes never travel through a Temporal payload.
 */
import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { deleteParseUpload, insertParseUpload } from '../../db/repositories/parse-uploads.js';
import { sniffFile } from '../../scraper/files/sniff.js';
import type { AppDeps } from '../deps.js';
import { httpError } from '../errors.js';
import { authOf } from '../middleware/auth.js';
import { requireCredits } from '../middleware/credits.js';
import { guard } from '../middleware/guard.js';
import { multipartUpload, uploadOf } from '../middleware/multipart.js';
import { validatedBody } from '../middleware/validate.js';
import { parseRequestSchema, parseScrapeOptions } from '../schemas/parse.js';
import { runScrape } from './scrape.js';

/** Firecrawl's limit for an uploaded file. */
export const PARSE_MAX_FILE_BYTES = 50 * 1024 * 1024;

export function parseRoutes(deps: AppDeps): Router {
  const router = Router();
  const body = validatedBody(parseRequestSchema);
  const upload = multipartUpload({ maxFileBytes: PARSE_MAX_FILE_BYTES, maxFieldBytes: deps.config.api.maxRequestBodyBytes });
  router.post('/v2/parse', ...guard(deps, 'scrape', 'scrape'), upload, body, requireCredits(deps), async (req, res) => {
    const request = body.of(res);
    const file = uploadOf(res);
    // Refused before anything is stored or billed, as Firecrawl does (415).
    if (!sniffFile(file.data, { contentType: '', filename: file.filename })) {
      throw httpError('SCRAPE_UNSUPPORTED_FILE_ERROR', `Unsupported file type: ${file.mimeType || file.filename}`, {
        contentType: file.mimeType,
      });
    }
    const uploadId = randomUUID();
    await insertParseUpload(deps.db, {
      id: uploadId,
      teamId: authOf(res).teamId,
      filename: file.filename,
      contentType: file.mimeType,
      data: file.data,
    });
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
