/**
 * POST /v1/scrape for clients still on v1 (the SDK's `firecrawl.v1.scrapeUrl`). The request is
 * translated to v2 ScrapeOptions and runs the same job as /v2/scrape; the answer has the same
 * envelope and Document, which is what the v1 client reads (it spreads `data` into its result).
 */
import { Router } from 'express';
import type { AppDeps } from '../deps.js';
import { scrapeOptionsFromV1, scrapeV1RequestSchema, type ScrapeV1Request } from '../schemas/scrape-v1.js';
import { runScrape, scrapeRequestChecks } from './scrape.js';

export function scrapeV1Routes(deps: AppDeps): Router {
  const router = Router();
  router.post('/v1/scrape', ...scrapeRequestChecks(deps, scrapeV1RequestSchema), async (req, res) => {
    const { url, origin: _origin, integration: _integration, zeroDataRetention, ...v1 } =
      res.locals.body as ScrapeV1Request;
    const options = scrapeOptionsFromV1(v1);
    res.json({ success: true, data: await runScrape(deps, req, res, { url, zeroDataRetention, options }) });
  });
  return router;
}
