/**
 * POST /v2/crawl/params-preview: the crawl options a prompt implies, to inspect before a crawl.
 * The model's suggestion is checked key by key with the crawl schema itself; what fails is
 * dropped and named in `warning`, so the preview never shows an option a crawl would refuse.
 */
import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { z } from 'zod';
import { crawlParamsPreviewWorkflow } from '../../workflows/index.js';
import type { AppDeps } from '../deps.js';
import { httpError } from '../errors.js';
import { authOf } from '../middleware/auth.js';
import { guard } from '../middleware/guard.js';
import { validatedBody } from '../middleware/validate.js';
import { crawlerOptionsShape } from '../schemas/crawl.js';
import { crawlParamsPreviewRequestSchema } from '../schemas/crawl-params-preview.js';
import { absoluteHttpUrl } from '../schemas/url.js';
import { workflowFailure } from '../workflow-result.js';

const PREVIEWABLE = [
  'includePaths',
  'excludePaths',
  'maxDiscoveryDepth',
  'crawlEntireDomain',
  'allowExternalLinks',
  'allowSubdomains',
  'sitemap',
  'ignoreQueryParameters',
  'deduplicateSimilarURLs',
  'delay',
  'limit',
] as const satisfies readonly (keyof typeof crawlerOptionsShape)[];

const PREVIEW_TIMEOUT_MS = 120_000;
const notUnderstood = () => httpError('BAD_REQUEST', 'Failed to process natural language prompt. Please try rephrasing.');

export function crawlParamsPreviewRoutes(deps: AppDeps): Router {
  const router = Router();
  const body = validatedBody(crawlParamsPreviewRequestSchema);
  router.post('/v2/crawl/params-preview', ...guard(deps, 'crawl', 'crawl'), body, async (_req, res) => {
    const { url, prompt } = body.of(res);
    if (!deps.features.llmConfigured) {
      throw httpError('LLM_NOT_CONFIGURED', 'params-preview needs a language model; set OPENAI_API_KEY (and OPENAI_BASE_URL) or OLLAMA_BASE_URL', {
        option: 'prompt',
      });
    }
    let suggested: Record<string, unknown>;
    try {
      ({ options: suggested } = await deps.temporal.workflow.execute(crawlParamsPreviewWorkflow, {
        workflowId: `params-preview-${randomUUID()}`,
        taskQueue: deps.config.temporal.taskQueue,
        args: [{ teamId: authOf(res).teamId, url: absoluteHttpUrl(url)!, prompt }],
        workflowExecutionTimeout: PREVIEW_TIMEOUT_MS,
      }));
    } catch (err) {
      const failure = workflowFailure(err, notUnderstood);
      if ('code' in failure && failure.code === 'LLM_OUTPUT_INVALID') throw notUnderstood();
      throw failure;
    }
    const { options, dropped } = checkedOptions(suggested);
    res.json({
      success: true,
      data: { url, ...options },
      ...(dropped.length > 0 && { warning: `Dropped options the model suggested that a crawl would refuse: ${dropped.join(', ')}` }),
    });
  });
  return router;
}

function checkedOptions(suggested: Record<string, unknown>): { options: Record<string, unknown>; dropped: string[] } {
  const options: Record<string, unknown> = {};
  const dropped: string[] = [];
  for (const [key, value] of Object.entries(suggested)) {
    const shape = (PREVIEWABLE as readonly string[]).includes(key) ? crawlerOptionsShape[key as (typeof PREVIEWABLE)[number]] : undefined;
    const parsed = shape && z.object({ [key]: shape }).safeParse({ [key]: value });
    if (parsed?.success) options[key] = (parsed.data as Record<string, unknown>)[key];
    else dropped.push(key);
  }
  return { options, dropped };
}
