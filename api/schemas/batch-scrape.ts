import { z } from 'zod';
import { checkWaitForWithinTimeout, requestMetaShape, scrapeOptionsShape } from '../../contracts/scrape-options.js';
import { webhookSchema } from '../../contracts/webhook.js';
import { MAX_JOB_PAGES } from '../../contracts/job-limits.js';

/** POST /v2/batch/scrape: urls plus every scrape option flattened at the top level. */
export const batchScrapeRequestSchema = z
  .strictObject({
    urls: z.array(z.string().max(8192)).min(1).max(MAX_JOB_PAGES).describe('Pages to scrape'),
    ...scrapeOptionsShape,
    ignoreInvalidURLs: z.boolean().default(true).describe('Drop invalid URLs and report them instead of failing'),
    appendToId: z.uuid().optional().describe('Add these URLs to an existing batch'),
    maxConcurrency: z.number().int().min(1).max(100).optional(),
    webhook: webhookSchema.optional(),
    zeroDataRetention: z.boolean().default(false),
    ...requestMetaShape,
  })
  .superRefine(checkWaitForWithinTimeout);
export type BatchScrapeRequest = z.infer<typeof batchScrapeRequestSchema>;
