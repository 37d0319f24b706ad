/**
 * POST /v1/scrape for clients still on v1 (the SDK's `firecrawl.v1.scrapeUrl`). The request is
 * translated to v2 ScrapeOptions and runs the same job as /v2/scrape; the answer has the same
 * envelope and Document, which is what the v1 client reads (it spreads `data` into its result).
 */
import { Router } from 'express';
import type { AppDeps } from '../deps.js';
import { validatedBody } from '../middleware/validate.js';
import { scrapeOptionsFromV1, scrapeV1RequestSchema } from '../schemas/scrape-v1.js';
import { runScrape, scrapeRequestChecks } from './scrape.js';

export function scrapeV1Routes(deps: AppDeps): Router {
  const router = Router();
  const body = validatedBody(scrapeV1RequestSchema);
  router.post('/v1/scrape', ...scrapeRequestChecks(deps, body), async (req, res) => {
    const { url, origin: _origin, integration: _integration, zeroDataRetention, ...v1 } = body.of(res);
    const options = scrapeOptionsFromV1(v1);
    res.json({ success: true, data: await runScrape(deps, req, res, { url, zeroDataRetention, options }) });
  });
  return router;
}
