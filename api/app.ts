import express from 'express';
import { errorHandler, notFoundHandler } from './errors.js';
import { createApiMetrics, metricsRoutes } from './metrics.js';
import { batchScrapeRoutes } from './routes/batch-scrape.js';
import { crawlActiveRoutes } from './routes/crawl-active.js';
import { crawlParamsPreviewRoutes } from './routes/crawl-params-preview.js';
import { crawlRoutes } from './routes/crawl.js';
import { dashboardRoutes } from './dashboard/routes.js';
import { docsRoutes } from './routes/docs.js';
import { healthRoutes } from './routes/health.js';
import { jobCancelRoutes } from './routes/job-cancel.js';
import { jobStatusRoutes } from './routes/job-status.js';
import { mapRoutes } from './routes/map.js';
import { extractRoutes } from './routes/extract.js';
import { searchRoutes } from './routes/search.js';
import { agentRoutes } from './routes/agent.js';
import { threatProtectionRoutes } from './routes/threat-protection.js';
import { mediaRoutes } from './routes/media.js';
import { monitorRoutes } from './monitor/routes.js';
import { parseRoutes } from './routes/parse.js';
import { parseUploadPutRoutes, parseUploadUrlRoutes } from './routes/parse-upload.js';
import { scrapeRoutes } from './routes/scrape.js';
import { scrapeV1Routes } from './routes/scrape-v1.js';
import { teamUsageRoutes } from './routes/team-usage.js';
import type { AppDeps } from './deps.js';

/** Builds the HTTP app; connections are made by the caller (api/server.ts or a test). */
export function createApp(appDeps: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  // `url` and `next` links are built from the request; trust forwarding headers from local proxies.
  app.set('trust proxy', 'loopback, linklocal, uniquelocal');
  const metrics = createApiMetrics(appDeps.db);
  const deps: AppDeps = { ...appDeps, metrics };
  app.use(metrics.middleware);
  // A file's bytes, whatever their type: before the JSON parser would read a JSON file as a body.
  app.use(parseUploadPutRoutes(deps));
  app.use(express.json({ limit: deps.config.api.maxRequestBodyBytes }));
  app.use(metricsRoutes(metrics, deps.config.metrics.token));
  app.use(docsRoutes());
  app.use(dashboardRoutes(deps));
  app.use(healthRoutes(deps));
  app.use(scrapeRoutes(deps));
  app.use(scrapeV1Routes(deps));
  app.use(parseRoutes(deps));
  app.use(parseUploadUrlRoutes(deps));
  app.use(crawlParamsPreviewRoutes(deps));
  app.use(crawlRoutes(deps));
  app.use(batchScrapeRoutes(deps));
  app.use(mapRoutes(deps));
  app.use(extractRoutes(deps));
  app.use(searchRoutes(deps));
  app.use(agentRoutes(deps));
  app.use(monitorRoutes(deps));
  app.use(threatProtectionRoutes(deps));
  app.use(jobCancelRoutes(deps));
  app.use(crawlActiveRoutes(deps));
  app.use(jobStatusRoutes(deps));
  app.use(teamUsageRoutes(deps));
  app.use(mediaRoutes(deps));
  app.use(notFoundHandler);
  app.use(errorHandler(deps.log));
  return app;
}
