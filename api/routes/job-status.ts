import { Router, type Request, type RequestHandler } from 'express';
import { z } from 'zod';
import {
  listCompletedDocuments,
  listFailedDocuments,
  listRobotsBlockedUrls,
} from '../../db/repositories/crawl-read.js';
import type { AppDeps } from '../deps.js';
import { publicBaseUrl } from '../public-url.js';
import { httpError } from '../errors.js';
import { documentPaging, isJobId, jobStatusView, requireTeamJob, webhookFailureViews, type ListedJobKind } from '../job-view.js';
import { authOf } from '../middleware/auth.js';
import { guard } from '../middleware/guard.js';
import { forgetDeliveredJob } from '../zero-data-retention.js';

export const statusQuerySchema = z.object({
  skip: z.coerce.number().int().min(0).default(0).describe('Completed documents to skip'),
  limit: z.coerce.number().int().min(1).max(1000).default(100).describe('Most documents in this page'),
});

/**
 * `/v1/crawl/:id` also serves batch scrapes, as Firecrawl's does: the v1 SDK's batch waiter
 * (`batchScrapeUrls` in the 1.x SDK and in 4.x's v1 client) polls the crawl status route.
 */
const JOB_PATHS: { prefix: string; kinds: readonly ListedJobKind[] }[] = [
  { prefix: '/v2/crawl', kinds: ['crawl'] },
  { prefix: '/v1/crawl', kinds: ['crawl', 'batch_scrape'] },
  { prefix: '/v2/batch/scrape', kinds: ['batch_scrape'] },
  { prefix: '/v1/batch/scrape', kinds: ['batch_scrape'] },
];

/** Literal routes that share the `/crawl/:id` shape; they belong to api/routes/crawl-active.ts. */
const RESERVED_IDS = new Set(['active', 'ongoing']);

/** GET crawl and batch-scrape status (with result pages) and errors, for v1 and v2. */
export function jobStatusRoutes(deps: AppDeps): Router {
  const router = Router();
  // Polled constantly by SDK waiters: its own generous rate limit class.
  const auth = guard(deps, 'crawl', 'crawl-status');

  for (const { prefix, kinds } of JOB_PATHS) {
    router.get(`${prefix}/:id`, skipReservedIds, ...auth, async (req, res) => {
      const id = jobIdParam(req);
      const query = statusQuerySchema.parse(req.query);
      const job = await requireTeamJob(deps.db, authOf(res).teamId, id, kinds);

      const [view, page] = await Promise.all([
        jobStatusView(deps.db, job),
        listCompletedDocuments(deps.db, job.id, documentPaging(job.status, query)),
      ]);
      // Only when more documents exist: the SDK follows `next` at once, with no delay, so a link
      // on an empty page of a running job would have it spin until the job ends.
      const next = page.hasMore
        ? nextPageUrl(deps, req, `${prefix}/${job.id}`, {
            skip: query.skip + page.documents.length,
            limit: req.query.limit === undefined ? undefined : query.limit,
          })
        : undefined;
      const { warning, ...figures } = view;
      // A finished zero-data-retention job whose last page is read here has delivered everything:
      // its content goes now (before the answer, so no later read finds it), not when the purge's
      // collection window ends. The page is already in memory.
      if (job.zero_data_retention && job.status !== 'scraping' && !page.hasMore) await forgetDeliveredJob(deps, { id: job.id, workflowId: job.workflow_id });
      res.json({
        success: true,
        ...figures,
        ...(next && { next }),
        data: page.documents,
        ...(warning && { warning }),
      });
    });

    router.get(`${prefix}/:id/errors`, ...auth, async (req, res) => {
      const job = await requireTeamJob(deps.db, authOf(res).teamId, jobIdParam(req), kinds);
      const [failed, robotsBlocked, webhookFailures] = await Promise.all([
        listFailedDocuments(deps.db, job.id),
        listRobotsBlockedUrls(deps.db, job.id),
        webhookFailureViews(deps.db, job.id),
      ]);
      // No `success` key: Firecrawl's errors response has none.
      res.json({
        errors: failed.map((f) => ({
          id: f.id,
          timestamp: f.createdAt.toISOString(),
          url: f.url,
          ...(f.errorCode && { code: f.errorCode }),
          error: f.error ?? 'Unknown error',
        })),
        robotsBlocked,
        // Trawl's own addition: failed webhook deliveries, one per attempt; `final` when given up.
        webhookFailures,
      });
    });
  }
  return router;
}

const skipReservedIds: RequestHandler = (req, _res, next) => {
  if (RESERVED_IDS.has(String(req.params.id))) next('route');
  else next();
};

function jobIdParam(req: Request): string {
  const id = String(req.params.id);
  if (!isJobId(id)) throw httpError('BAD_REQUEST', 'Invalid job ID format. Job ID must be a valid UUID.');
  return id;
}

/** Absolute, as Firecrawl's: the SDK requests it as given. `limit` is carried only if the caller set it. */
function nextPageUrl(
  deps: AppDeps,
  req: Request,
  path: string,
  page: { skip: number; limit: number | undefined },
): string {
  const search = new URLSearchParams({ skip: String(page.skip) });
  if (page.limit !== undefined) search.set('limit', String(page.limit));
  return `${publicBaseUrl(req, deps.config)}${path}?${search}`;
}
