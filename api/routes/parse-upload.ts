/**
 * Firecrawl's two-step upload for /v2/parse: POST /v2/parse/upload-url makes a reference and an
 * upload URL, the client PUTs the file's bytes there, and POST /v2/parse with `{uploadRef}` parses
 * them. The reference (32 random bytes) is the PUT's only credential, as Firecrawl's signed
 * reference is, and lives 10 minutes; the bytes wait in `parse_uploads` like a multipart upload's.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import express, { Router } from 'express';
import { receiveParseUpload, reserveParseUpload, UPLOAD_REF_TTL_MINUTES } from '../../db/repositories/parse-uploads.js';
import type { AppDeps } from '../deps.js';
import { httpError } from '../errors.js';
import { authOf } from '../middleware/auth.js';
import { guard } from '../middleware/guard.js';
import { validatedBody } from '../middleware/validate.js';
import { publicBaseUrl } from '../public-url.js';
import { PARSE_MAX_FILE_BYTES, parseUploadUrlSchema, UPLOAD_REF } from '../schemas/parse.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;


export function parseUploadUrlRoutes(deps: AppDeps): Router {
  const router = Router();
  const body = validatedBody(parseUploadUrlSchema);
  router.post('/v2/parse/upload-url', ...guard(deps, 'scrape', 'scrape'), body, async (req, res) => {
    const { filename, contentType } = body.of(res);
    const id = randomUUID();
    const uploadRef = randomBytes(32).toString('base64url');
    const type = contentType ?? 'application/octet-stream';
    await reserveParseUpload(deps.db, { id, teamId: authOf(res).teamId, filename: filename.trim(), contentType: type, uploadRef });
    res.json({
      success: true,
      data: {
        uploadUrl: `${publicBaseUrl(req, deps.config)}/v2/parse/upload/${id}?uploadRef=${encodeURIComponent(uploadRef)}`,
        uploadRef,
        method: 'PUT',
        headers: { 'Content-Type': type },
        expiresAt: new Date(Date.now() + UPLOAD_REF_TTL_MINUTES * 60_000).toISOString(),
        maxSizeBytes: PARSE_MAX_FILE_BYTES,
      },
    });
  });
  return router;
}

/**
 * PUT /v2/parse/upload/{uploadId}?uploadRef=…: the file's bytes whatever their Content-Type, so
 * this router goes before the app's JSON parser (api/app.ts), which would read a JSON file as a body.
 */
export function parseUploadPutRoutes(deps: AppDeps): Router {
  const router = Router();
  const raw = express.raw({ type: () => true, limit: PARSE_MAX_FILE_BYTES });
  router.put('/v2/parse/upload/:uploadId', raw, async (req, res) => {
    const uploadId = String(req.params.uploadId);
    const uploadRef = typeof req.query.uploadRef === 'string' ? req.query.uploadRef : '';
    const data = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    if (!data.length) throw httpError('BAD_REQUEST', 'File is empty');
    if (!UUID.test(uploadId) || !UPLOAD_REF.test(uploadRef) || !(await receiveParseUpload(deps.db, uploadId, uploadRef, data))) {
      throw httpError('NOT_FOUND', 'Upload URL not found or expired.');
    }
    res.json({ success: true });
  });
  return router;
}
