import { z } from 'zod';
import { requestMetaShape } from '../../contracts/scrape-options.js';
import { targetUrlSchema } from './url.js';

/** POST /v2/crawl/params-preview */
export const crawlParamsPreviewRequestSchema = z.strictObject({
  url: targetUrlSchema,
  prompt: z.string().min(1).max(10_000).describe('What to crawl, in natural language'),
  ...requestMetaShape,
});
