import { z } from 'zod';
import { checkWaitForWithinTimeout, requestMetaShape, scrapeOptionsShape, threatProtectionSchema } from '../../contracts/scrape-options.js';
import { webhookSchema } from '../../contracts/webhook.js';
import { globProblem } from '../../lib/patterns/glob.js';

/** POST /v1/extract and /v2/extract (one shape on both). */
export const extractRequestSchema = z
  .strictObject({
    urls: z.array(z.string().max(8192)).max(100).optional().describe('Pages to read; `https://site/path/*` expands to the pages a map finds under it'),
    prompt: z.string().max(10_000).optional().describe('What to extract'),
    schema: z.record(z.string(), z.unknown()).optional().describe('JSON Schema of the answer'),
    systemPrompt: z.string().max(10_000).optional(),
    limit: z.number().int().min(1).max(1000).default(25).describe('Most pages a `/*` URL expands to, over all of them'),
    ignoreSitemap: z.boolean().default(false).describe('Expand `/*` URLs from links only'),
    includeSubdomains: z.boolean().default(true).describe('Let `/*` URLs expand to subdomains'),
    allowExternalLinks: z.boolean().default(false),
    enableWebSearch: z.boolean().default(false).describe('Also read the pages a search for the prompt finds (the team index, or SearXNG); always so without urls'),
    scrapeOptions: z
      .strictObject(scrapeOptionsShape)
      .superRefine(checkWaitForWithinTimeout)
      .default(() => z.strictObject(scrapeOptionsShape).parse({}))
      .describe('How each page is scraped; formats are set by extract'),
    showSources: z.boolean().default(false).describe('Name the pages each field came from'),
    ignoreInvalidURLs: z.boolean().default(true).describe('Drop invalid URLs and report them instead of failing'),
    urlTrace: z.boolean().default(false),
    timeout: z.number().int().min(1000).max(3_600_000).optional().describe('Deadline for the whole job (ms); then it fails'),
    agent: z.looseObject({ model: z.string().max(100).optional() }).optional().describe('Accepted; Trawl uses its configured model'),
    webhook: webhookSchema.optional(),
    threatProtection: threatProtectionSchema.optional(),
    ...requestMetaShape,
  })
  .superRefine((body, ctx) => {
    if (!body.urls?.length && !body.prompt) ctx.addIssue({ code: 'custom', path: ['urls'], message: 'Either urls or prompt is required' });
    body.urls?.forEach((url, i) => {
      const problem = globProblem(url);
      if (problem) ctx.addIssue({ code: 'custom', path: ['urls', i], message: problem });
    });
  });
export type ExtractRequest = z.infer<typeof extractRequestSchema>;
