import { z } from 'zod';
import { checkWaitForWithinTimeout, requestMetaShape, scrapeOptionsShape } from '../../contracts/scrape-options.js';
import { targetUrlSchema } from './url.js';

/** POST /v2/scrape */
export const scrapeRequestSchema = z
  .strictObject({
    url: targetUrlSchema,
    ...scrapeOptionsShape,
    zeroDataRetention: z.boolean().default(false).describe('Keep nothing after the response is sent'),
    ...requestMetaShape,
  })
  .superRefine(checkWaitForWithinTimeout);
export type ScrapeRequest = z.infer<typeof scrapeRequestSchema>;
