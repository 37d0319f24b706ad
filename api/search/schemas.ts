import { z } from 'zod';
import { DEVELOPER_CATEGORY_ALIASES, domainToolsSchema, isDeveloperCategory, toolDetailSchema } from '../../contracts/cloud-only.js';
import { checkWaitForWithinTimeout, requestMetaShape, scrapeOptionsShape } from '../../contracts/scrape-options.js';
import { parseTbs } from '../../lib/search/tbs.js';

const sourceName = z.enum(['web', 'news', 'images']);
/** Firecrawl's tool catalogue: accepted, and named in the warning (contracts/cloud-only.ts). */
const alexandria = z.literal('alexandria');
const placeShape = {
  tbs: z.string().max(200).optional().describe('Time filter: qdr:h|d|w|m|y, or cdr:1,cd_min:M/D/YYYY,cd_max:M/D/YYYY'),
  lang: z.string().regex(/^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})?$/).optional(),
  country: z.string().regex(/^[a-zA-Z]{2}$/).optional(),
  location: z.string().max(200).optional(),
  filter: z.string().max(500).optional().describe('Accepted for compatibility; not applied'),
};
const categoryName = z.enum(['github', 'research', 'pdf', ...DEVELOPER_CATEGORY_ALIASES]);
const domain = z.string().max(253).regex(/^(\*\.)?[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)*$/, 'a domain name, without protocol, path or port');

/** POST /v2/search and /v1/search (v1 answers in its flat shape). */
export const searchRequestSchema = z
  .strictObject({
    query: z.string().trim().min(1).max(2000).describe('What to search for'),
    limit: z.number().int().min(1).max(100).default(10).describe('Results per source'),
    sources: z
      .array(z.union([sourceName, alexandria, z.strictObject({ type: sourceName, ...placeShape }), z.strictObject({ type: alexandria })]))
      .min(1)
      .max(4)
      .default(['web'])
      .describe('Which result lists to answer: web, news, images (alexandria is accepted and answers nothing)'),
    categories: z.array(z.union([categoryName, z.strictObject({ type: categoryName })])).max(3).default([]),
    highlights: z.boolean().optional().describe('Query-relevant excerpts as web descriptions and news snippets; default true'),
    safe: z.boolean().optional().describe("Safe search: SearXNG's strict filter when true"),
    enterprise: z
      .array(z.enum(['default', 'anon', 'zdr']))
      .max(3)
      .optional()
      .describe('anon is accepted and runs an ordinary search; zdr keeps neither query nor results (403 unless the plan allows zero data retention)'),
    asyncScraping: z.boolean().optional().describe('Accepted; no effect, as in Firecrawl'),
    toolDetail: toolDetailSchema,
    domainTools: domainToolsSchema,
    ...placeShape,
    timeout: z.number().int().min(1000).max(300_000).default(60_000).describe('One deadline over the search and its scrapes (ms)'),
    ignoreInvalidURLs: z.boolean().default(false),
    includeDomains: z.array(domain).max(100).optional().describe('Only results on these domains (and their subdomains)'),
    excludeDomains: z.array(domain).max(100).optional().describe('No results on these domains'),
    scrapeOptions: z.strictObject(scrapeOptionsShape).superRefine(checkWaitForWithinTimeout).optional().describe('With formats: scrape every web and news result'),
    ...requestMetaShape,
  })
  .superRefine((body, ctx) => {
    const developer = body.categories.some((c) => isDeveloperCategory(typeof c === 'string' ? c : c.type));
    if (developer && body.categories.length > 1) {
      ctx.addIssue({ code: 'custom', path: ['categories'], message: 'the developer category cannot be combined with other categories' });
    }
    if (body.includeDomains?.length && body.excludeDomains?.length) {
      ctx.addIssue({ code: 'custom', path: ['includeDomains'], message: 'includeDomains and excludeDomains cannot both be given' });
    }
    const tbsList = [body.tbs, ...body.sources.map((s) => (typeof s === 'string' || !('tbs' in s) ? undefined : s.tbs))];
    for (const tbs of tbsList) {
      try {
        parseTbs(tbs, new Date());
      } catch (err) {
        ctx.addIssue({ code: 'custom', path: ['tbs'], message: (err as Error).message });
      }
    }
  });
export type SearchRequest = z.infer<typeof searchRequestSchema>;
