/** POST /v2/crawl/params-preview: the crawl options a prompt implies, to inspect before a crawl. */
import { Router } from 'express';
import { suggestCrawlOptions } from '../crawl-prompt.js';
import type { AppDeps } from '../deps.js';
import { authOf } from '../middleware/auth.js';
import { guard } from '../middleware/guard.js';
import { validatedBody } from '../middleware/validate.js';
import { crawlParamsPreviewRequestSchema } from '../schemas/crawl-params-preview.js';
import { absoluteHttpUrl } from '../schemas/url.js';
import { assertModelConfigured } from '../unsupported-options.js';

export function crawlParamsPreviewRoutes(deps: AppDeps): Router {
  const router = Router();
  const body = validatedBody(crawlParamsPreviewRequestSchema);
  router.post('/v2/crawl/params-preview', ...guard(deps, 'crawl', 'crawl'), body, async (_req, res) => {
    const { url, prompt } = body.of(res);
    assertModelConfigured(deps.features, 'params-preview', 'prompt');
    const { options, dropped } = await suggestCrawlOptions(deps, { teamId: authOf(res).teamId, url: absoluteHttpUrl(url)!, prompt });
    res.json({
      success: true,
      data: { url, ...options },
      ...(dropped.length > 0 && { warning: `Dropped options the model suggested that a crawl would refuse: ${dropped.join(', ')}` }),
    });
  });
  return router;
}
