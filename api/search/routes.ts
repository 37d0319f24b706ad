/**
 * POST /v2/search and /v1/search: a search job (workflows/search.ts) the request waits for. v2
 * answers `{web?, news?, images?}` with only the sources asked for; v1 a flat list of web results.
 * With `scrapeOptions.formats`, web and news results carry their scraped Document, or
 * `metadata: {statusCode, error}` when their scrape failed.
 */
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { isDeveloperCategory, notDoneWarnings } from '../../contracts/cloud-only.js';
import { scrapeOptionsSchema } from '../../contracts/scrape-options.js';
import { listJobDocuments, type JobDocument } from '../../db/repositories/crawl-read.js';
import type { ErrorCode } from '../../lib/errors.js';
import { findTeamJob } from '../../db/repositories/jobs.js';
import type { SearchJobResult, SearchSourceRequest } from '../../activities/search.js';
import type { SearchCategory } from '../../activities/search/provider.js';
import { searchWorkflow } from '../../workflows/index.js';
import type { SearchWorkflowInput } from '../../workflows/search.js';
import type { AppDeps } from '../deps.js';
import { httpError, STATUS_BY_CODE } from '../errors.js';
import { startJob } from '../job-start.js';
import { authOf } from '../middleware/auth.js';
import { requireCredits } from '../middleware/credits.js';
import { guard } from '../middleware/guard.js';
import { validatedBody, type ValidatedBody } from '../middleware/validate.js';
import { searchRequestSchema, type SearchRequest } from './schemas.js';
import { assertThreatOverrideAllowed } from '../threat-override.js';
import { assertScrapeOptionsSupported } from '../unsupported-options.js';
import { awaitSyncJob, DEADLINE_GRACE_MS } from '../workflow-result.js';
import { forgetDeliveredJob, withZeroDataRetention, ZDR_SEARCH_NOT_ALLOWED, zeroDataRetentionOf } from '../zero-data-retention.js';
import { jobWorkflowId } from '../../lib/workflow-ids.js';

export function searchRoutes(deps: AppDeps): Router {
  const router = Router();
  const body = validatedBody(searchRequestSchema);
  const checks = [...guard(deps, 'search', 'search'), body, requireCredits(deps)];
  router.post('/v2/search', ...checks, runSearch(deps, 'v2', body));
  router.post('/v1/search', ...checks, runSearch(deps, 'v1', body));
  return router;
}

const searchTimeout = () => httpError('JOB_TIMEOUT', 'Search timed out');

function runSearch(deps: AppDeps, version: 'v1' | 'v2', validated: ValidatedBody<SearchRequest>): RequestHandler {
  return async (req, res) => {
    const body = validated.of(res);
    const raw = req.body as { scrapeOptions?: { formats?: unknown } };
    // Formats have a default; only formats the caller named mean "scrape the results".
    const scrape = body.scrapeOptions !== undefined && Array.isArray(raw.scrapeOptions?.formats) && raw.scrapeOptions.formats.length > 0;
    const { data, creditsUsed, jobId, warning } = await performSearch(deps, req, res, body, scrape);
    if (version === 'v1') {
      res.json({ success: true, data: data.web ?? [], ...(warning && { warning }) });
      return;
    }
    res.json({ success: true, data, creditsUsed, id: jobId, ...(warning && { warning }) });
  };
}

export interface SearchAnswer {
  /** Each result as the provider listed it, with its scraped Document's fields when it was scraped. */
  data: { web?: object[]; news?: object[]; images?: object[] };
  creditsUsed: number;
  jobId: string;
  warning?: string;
}

/** One search job for a validated request, to its answer; shared with the Jina-style GET /s/ (api/reader/routes.ts). */
export async function performSearch(deps: AppDeps, req: Request, res: Response, body: SearchRequest, scrape: boolean): Promise<SearchAnswer> {
  // End-to-end ZDR: Trawl keeps neither the query nor the results, and its own index or SearXNG
  // instance is the provider, which keeps nothing of Trawl's asking.
  const zdr = await zeroDataRetentionOf(deps, res, body.enterprise?.includes('zdr') ?? false, {
    code: 'FORBIDDEN',
    message: ZDR_SEARCH_NOT_ALLOWED,
    option: 'enterprise',
  });
  if (scrape) assertScrapeOptionsSupported(body.scrapeOptions!, deps.features);
  const { teamId, keyId } = authOf(res);
  await assertThreatOverrideAllowed(deps.db, teamId, body.scrapeOptions?.threatProtection);
  const deadline = Date.now() + body.timeout;
  // `alexandria` answers nothing here; the warning below says so.
  const sources = body.sources.flatMap((s): SearchSourceRequest[] => {
    const source: { type: SearchSourceRequest['type'] | 'alexandria' } & Omit<SearchSourceRequest, 'type'> = typeof s === 'string' ? { type: s } : s;
    if (source.type === 'alexandria') return [];
    return [{ type: source.type, tbs: source.tbs ?? body.tbs, lang: source.lang ?? body.lang, country: source.country ?? body.country, location: source.location ?? body.location }];
  });
  const { origin: _origin, integration: _integration, ...options } = body;
  let stored: ReturnType<AppDeps['storedScrapes']['wait']> | undefined;
  let jobId: string;
  try {
    const started = await startJob(deps, {
      kind: 'search',
      request: req,
      teamId,
      apiKeyId: keyId,
      url: null,
      options,
      zeroDataRetention: zdr,
      // The response waits for the job's result or its failure, and either commit makes the row
      // durable with it.
      relaxed: true,
      // Without scraping, the search activity completes the job and notifies its id at the
      // commit; registered before the start, so the notice cannot come first.
      beforeStart: (id) => {
        if (!scrape) stored = deps.storedScrapes.wait(id);
      },
      workflow: searchWorkflow,
      input: (id): SearchWorkflowInput => ({
        jobId: id,
        teamId,
        kind: 'search',
        scrapeOptions: withZeroDataRetention(body.scrapeOptions ?? scrapeOptionsSchema.parse({}), zdr),
        deadlineAt: deadline,
        search: {
          query: body.query,
          limit: body.limit,
          sources,
          // The developer category (Firecrawl's own index) leaves ordinary web results, as its warning says.
          categories: body.categories.map((c) => (typeof c === 'string' ? c : c.type)).filter((c): c is SearchCategory => !isDeveloperCategory(c)),
          highlights: body.highlights,
          safe: body.safe,
          includeDomains: body.includeDomains,
          excludeDomains: body.excludeDomains,
          scrape,
          ...(zdr && { zeroDataRetention: true }),
        },
      }),
      workflowExecutionTimeoutMs: body.timeout + DEADLINE_GRACE_MS * 3,
    });
    jobId = started.jobId;
    await awaitSyncJob(deps, res, { jobId, handle: started.handle, deadline, stored: stored?.stored, expired: searchTimeout, timedOut: searchTimeout });
  } finally {
    stored?.cancel();
  }

  const [job, documents] = await Promise.all([findTeamJob(deps.db, teamId, jobId), scrape ? listJobDocuments(deps.db, jobId) : []]);
  const result = job?.result as SearchJobResult | null | undefined;
  if (!result) throw new Error(`search ${jobId}: result missing after success`);
  const byUrl = new Map(documents.map((d) => [d.url, d]));
  const withPage = <T extends { url: string }>(item: T) => (scrape ? { ...item, ...pageOf(byUrl.get(item.url)) } : item);
  const data = {
    ...(result.sources.web && { web: result.sources.web.map(withPage) }),
    ...(result.sources.news && { news: result.sources.news.map(withPage) }),
    ...(result.sources.images && { images: result.sources.images }),
  };
  const creditsUsed = result.searchCredits + documents.reduce((n, d) => n + d.creditsUsed, 0);
  // Delivered with this response: a ZDR search forgets its query, results and pages now.
  if (zdr) await forgetDeliveredJob(deps, { id: jobId, workflowId: jobWorkflowId('search', jobId) });
  const warnings = [notDoneWarnings('search', body), result.warning].filter(Boolean);
  return { data, creditsUsed, jobId, ...(warnings.length > 0 && { warning: warnings.join(' ') }) };
}

/** A result's scraped Document, or why it has none. */
function pageOf(doc: JobDocument | undefined): Record<string, unknown> {
  if (!doc) return { metadata: { statusCode: 0, error: 'Not scraped before the deadline' } };
  if (doc.status === 'completed' && doc.document) return doc.document;
  const status = STATUS_BY_CODE[(doc.errorCode ?? 'UNKNOWN_ERROR') as ErrorCode] ?? 500;
  return { metadata: { statusCode: status, error: doc.error ?? 'Scrape failed', ...(doc.errorCode && { code: doc.errorCode }) } };
}
