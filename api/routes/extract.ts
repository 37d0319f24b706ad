/**
 * POST /v{1,2}/extract starts an extract job (workflows/extract.ts); GET /v{1,2}/extract/:id reads
 * it; DELETE cancels it (api/routes/job-cancel.ts). Each page is scraped like a batch page with a
 * `json` format, so it is cached, charged and reported like one; the job's answer is the merge.
 */
import { Router, type RequestHandler } from 'express';
import { addBatchPages } from '../../db/repositories/batch.js';
import { listFailedDocuments } from '../../db/repositories/crawl-read.js';
import { readJobTokens } from '../../db/repositories/token-ledger.js';
import type { ScrapeOptions } from '../../contracts/scrape-options.js';
import { relaxedSchema } from '../../llm/page-features.js';
import { exactPageKey } from '../../lib/url/normalize.js';
import type { ExtractJobResult } from '../../activities/extract.js';
import { extractWorkflow } from '../../workflows/index.js';
import type { ExtractWorkflowInput } from '../../workflows/extract.js';
import type { AppDeps } from '../deps.js';
import { httpError } from '../errors.js';
import { checkIdempotencyKey, startJob } from '../job-start.js';
import { jobStatusView, requireTeamJob, webhookFailureViews } from '../job-view.js';
import { authOf } from '../middleware/auth.js';
import { requireCredits } from '../middleware/credits.js';
import { guard } from '../middleware/guard.js';
import { validatedBody, type ValidatedBody } from '../middleware/validate.js';
import { extractRequestSchema, type ExtractRequest } from '../schemas/extract.js';
import { absoluteHttpUrl } from '../schemas/url.js';
import { assertThreatOverrideAllowed } from '../threat-override.js';
import { assertJsonSchema, assertModelConfigured, assertScrapeOptionsSupported } from '../unsupported-options.js';

export function extractRoutes(deps: AppDeps): Router {
  const router = Router();
  const body = validatedBody(extractRequestSchema);
  const start = [...guard(deps, 'extract', 'extract'), body, requireCredits(deps)];
  const read = guard(deps, 'extract', 'crawl-status');
  for (const version of ['v1', 'v2']) {
    router.post(`/${version}/extract`, ...start, startExtract(deps, body));
    router.get(`/${version}/extract/:id`, ...read, extractStatus(deps));
  }
  return router;
}

function startExtract(deps: AppDeps, validated: ValidatedBody<ExtractRequest>): RequestHandler {
  return async (req, res) => {
    const body = validated.of(res);
    const threatProtection = body.threatProtection ?? body.scrapeOptions.threatProtection;
    await assertThreatOverrideAllowed(deps.db, authOf(res).teamId, threatProtection);
    assertModelConfigured(deps.features, 'Extract', 'prompt');
    assertJsonSchema(body.schema, 'schema');
    const scrapeOptions: ScrapeOptions = {
      ...body.scrapeOptions,
      threatProtection,
      formats: [
        {
          type: 'json',
          prompt: body.prompt,
          // A page may hold only some of the answer: pages answer with nothing required, the merge must match.
          schema: body.schema && relaxedSchema(body.schema),
          systemPrompt: body.systemPrompt,
          checkPromptInjection: false,
        },
      ],
    };
    assertScrapeOptionsSupported(scrapeOptions, deps.features);

    const pages: { url: string; urlKey: string }[] = [];
    const globs: string[] = [];
    const invalidURLs: string[] = [];
    for (const raw of body.urls ?? []) {
      const url = absoluteHttpUrl(raw.replaceAll('*', 'x'));
      if (!url) invalidURLs.push(raw);
      else if (raw.includes('*')) globs.push(raw.trim());
      else pages.push({ url, urlKey: exactPageKey(url) });
    }
    if (invalidURLs.length > 0 && !body.ignoreInvalidURLs) throw httpError('INVALID_URL', 'Invalid URL', { invalidURLs });
    // Without URLs the pages come from a search for the prompt (the schema requires one or the other).
    const searchPrompt = body.enableWebSearch || !body.urls?.length ? body.prompt : undefined;
    if (pages.length + globs.length === 0 && !searchPrompt) throw httpError('BAD_REQUEST', 'Bad Request: no valid URLs to extract from', { invalidURLs });

    const { teamId, keyId } = authOf(res);
    const idempotencyKey = await checkIdempotencyKey(deps, req, teamId);
    const { origin: _origin, integration: _integration, ...options } = body;
    const { jobId } = await startJob(deps, {
      kind: 'extract',
      request: req,
      teamId,
      apiKeyId: keyId,
      url: null,
      options,
      idempotencyKey,
      beforeStart: (id) => addBatchPages(deps.db, id, pages),
      workflow: extractWorkflow,
      input: (id): ExtractWorkflowInput => ({
        jobId: id,
        teamId,
        kind: 'extract',
        scrapeOptions,
        // Extract reports no page events, as Firecrawl's does not.
        webhook: body.webhook && { ...body.webhook, events: body.webhook.events.filter((e) => e !== 'page') },
        pagesPerRun: deps.config.crawl.pagesPerRun,
        ...(body.timeout !== undefined && { deadlineAt: Date.now() + body.timeout }),
        extract: {
          schema: body.schema,
          ...((globs.length > 0 || searchPrompt) && {
            expand: { globs, searchPrompt, limit: body.limit, includeSubdomains: body.includeSubdomains, ignoreSitemap: body.ignoreSitemap },
          }),
        },
      }),
    });
    res.json({ success: true, id: jobId, urlTrace: [], ...(invalidURLs.length > 0 && { invalidURLs }) });
  };
}

/** Firecrawl's shape: `processing` while it runs, `data` only once completed. */
function extractStatus(deps: AppDeps): RequestHandler {
  return async (req, res) => {
    const job = await requireTeamJob(deps.db, authOf(res).teamId, String(req.params.id), ['extract']);
    const [view, tokensUsed, failed, webhookFailures] = await Promise.all([
      jobStatusView(deps.db, job),
      readJobTokens(deps.db, job.id),
      listFailedDocuments(deps.db, job.id),
      webhookFailureViews(deps.db, job.id),
    ]);
    // Extract has no errors endpoint in the reference: the pages it could not read are named here.
    const unread = failed.length > 0 ? `Not read: ${failed.map((f) => `${f.url} (${f.errorCode ?? 'error'})`).join(', ')}.` : undefined;
    const warning = [view.warning, unread].filter(Boolean).join(' ');
    const result = job.result as ExtractJobResult | null;
    const completed = job.status === 'completed';
    const showSources = (job.options as { showSources?: boolean }).showSources === true;
    res.json({
      success: job.status !== 'failed',
      id: job.id,
      status: job.status === 'scraping' ? 'processing' : job.status,
      data: completed ? (result?.data ?? {}) : [],
      ...(completed && showSources && { sources: result?.sources ?? {} }),
      ...(view.error && { error: view.error }),
      ...(warning && { warning }),
      expiresAt: view.expiresAt,
      creditsUsed: view.creditsUsed,
      tokensUsed,
      ...(webhookFailures.length > 0 && { webhookFailures }),
    });
  };
}
