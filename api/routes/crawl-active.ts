import { Router } from 'express';
import { listRunningCrawls } from '../../db/repositories/crawl-read.js';
import type { AppDeps } from '../deps.js';
import { authOf } from '../middleware/auth.js';
import { guard } from '../middleware/guard.js';

const PATHS = ['/v2/crawl/active', '/v2/crawl/ongoing', '/v1/crawl/active', '/v1/crawl/ongoing'];

/** GET the caller's running crawls. Batch scrapes are not listed, as in Firecrawl. */
export function crawlActiveRoutes(deps: AppDeps): Router {
  const router = Router();
  router.get(
    PATHS,
    ...guard(deps, 'crawl', 'crawl-status'),
    async (_req, res) => {
      const crawls = await listRunningCrawls(deps.db, authOf(res).teamId);
      res.json({
        success: true,
        crawls: crawls.map((c) => {
          // Webhook settings are not crawler options in Firecrawl, and their headers may hold secrets.
          const { webhook: _webhook, ...options } = c.options;
          return {
            id: c.id,
            teamId: c.teamId,
            url: c.url,
            status: c.status,
            created_at: c.createdAt.toISOString(),
            options,
          };
        }),
      });
    },
  );
  return router;
}
