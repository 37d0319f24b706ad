import { z } from 'zod';
import { checkWaitForWithinTimeout, requestMetaShape, scrapeOptionsShape } from '../../contracts/scrape-options.js';
import { parseTbs } from '../../lib/search/tbs.js';

const sourceName = z.enum(['web', 'news', 'images']);
const placeShape = {
  tbs: z.string().max(200).optional().describe('Time filter: qdr:h|d|w|m|y, or cdr:1,cd_min:M/D/YYYY,cd_max:M/D/YYYY'),
  lang: z.string().regex(/^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})?$/).optional(),
  country: z.string().regex(/^[a-zA-Z]{2}$/).optional(),
  location: z.string().max(200).optional(),
  filter: z.string().max(500).optional().describe('Accepted for compatibility; not applied'),
};
const categoryName = z.enum(['github', 'research', 'pdf']);
const domain = z.string().max(253).regex(/^(\*\.)?[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)*$/, 'a domain name, without protocol, path or port');

/** POST /v2/search and /v1/search (v1 answers in its flat shape). */
export const searchRequestSchema = z
  .strictObject({
    query: z.string().trim().min(1).max(2000).describe('What to search for'),
    limit: z.number().int().min(1).max(100).default(10).describe('Results per source'),
    sources: z
      .array(z.union([sourceName, z.strictObject({ type: sourceName, ...placeShape })]))
      .min(1)
      .max(3)
      .default(['web'])
      .describe('Which result lists to answer: web, news, images'),
    categories: z.array(z.union([categoryName, z.strictObject({ type: categoryName })])).max(3).default([]),
    ...placeShape,
    timeout: z.number().int().min(1000).max(300_000).default(60_000).describe('One deadline over the search and its scrapes (ms)'),
    ignoreInvalidURLs: z.boolean().default(false),
    includeDomains: z.array(domain).max(100).optional().describe('Only results on these domains (and their subdomains)'),
    excludeDomains: z.array(domain).max(100).optional().describe('No results on these domains'),
    scrapeOptions: z.strictObject(scrapeOptionsShape).superRefine(checkWaitForWithinTimeout).optional().describe('With formats: scrape every web and news result'),
    ...requestMetaShape,
  })
  .superRefine((body, ctx) => {
    if (body.includeDomains?.length && body.excludeDomains?.length) {
      ctx.addIssue({ code: 'custom', path: ['includeDomains'], message: 'includeDomains and excludeDomains cannot both be given' });
    }
    const tbsList = [body.tbs, ...body.sources.map((s) => (typeof s === 'string' ? undefined : s.tbs))];
    for (const tbs of tbsList) {
      try {
        parseTbs(tbs, new Date());
      } catch (err) {
        ctx.addIssue({ code: 'custom', path: ['tbs'], message: (err as Error).message });
      }
    }
  });
export type SearchRequest = z.infer<typeof searchRequestSchema>;
