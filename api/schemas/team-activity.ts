import { z } from 'zod';

/** Firecrawl's endpoint names; Trawl has no jobs of the last four, so filtering by them lists none. */
export const ACTIVITY_ENDPOINTS = ['scrape', 'crawl', 'batch_scrape', 'search', 'extract', 'map', 'agent', 'llmstxt', 'deep_research', 'browser', 'interact'] as const;

/** GET /v2/team/activity */
export const teamActivityQuerySchema = z.object({
  endpoint: z.enum(ACTIVITY_ENDPOINTS).optional().describe('Only jobs of this endpoint'),
  limit: z.coerce.number().int().min(1).max(100).default(50).describe('Most jobs in this page'),
  cursor: z.string().max(200).optional().describe('The `cursor` of the previous page'),
});
