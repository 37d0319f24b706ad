/**
 * GET /v2/media/<id>.<ext>: screenshots and PDFs the service stored for scrapes. No API key: the
 * 32 random bytes in the name are the permission, like a signed URL. Expired files answer 404
 * (and are deleted by api/media-purge.ts).
 */
import type { Request } from 'express';
import { Router } from 'express';
import { findLiveMedia } from '../../db/repositories/media.js';
import type { Config } from '../../lib/config.js';
import { parseMediaFileName } from '../../lib/media-files.js';
import type { AppDeps } from '../deps.js';
import { httpError } from '../errors.js';
import { publicBaseUrl } from '../public-url.js';

const MEDIA_PATH = '/v2/media';

/**
 * The base URL page activities link stored media under, absolute so the Document can be handed
 * out anywhere (responses, webhooks); undefined when SCREENSHOT_DATA_URIS keeps them inline.
 */
export function mediaBaseUrl(req: Request, config: Readonly<Config>): string | undefined {
  return config.media.dataUris ? undefined : `${publicBaseUrl(req, config)}${MEDIA_PATH}`;
}

export function mediaRoutes(deps: AppDeps): Router {
  const router = Router();
  router.get(`${MEDIA_PATH}/:file`, async (req, res) => {
    const name = parseMediaFileName(String(req.params.file));
    const media = name ? await findLiveMedia(deps.db, name.id, deps.config.media.retentionHours) : undefined;
    // The extension must match too, so one file has exactly one URL.
    if (!name || !media || media.mimeType !== name.mimeType) throw httpError('NOT_FOUND', 'Media not found or expired');
    res.set({
      'Content-Type': media.mimeType,
      'Content-Length': String(media.data.length),
      // The bytes behind a name never change; caches may keep them until the file expires.
      'Cache-Control': `public, max-age=${media.secondsLeft}, immutable`,
      'X-Content-Type-Options': 'nosniff',
    });
    res.end(media.data);
  });
  return router;
}
