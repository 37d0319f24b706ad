/**
 * The crawler's scope fields, one shape for the crawl and the map: Firecrawl's map takes the
 * crawler's options too, and in Trawl both go through the same rules (lib/crawl/scope.ts) and the
 * same robots.txt reading, so both validate them here.
 */
import { z } from 'zod';
import { validatePathRegexes } from '../lib/crawl/path-patterns.js';

const pathRegexes = z
  .array(z.string().max(2000))
  .default([])
  .superRefine((list, ctx) => {
    const problem = validatePathRegexes(list);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/**
 * A robots.txt user-agent token (RFC 9309 §2.2.1 allows letters, `_` and `-`; product names in
 * the wild carry digits, dots and a `/version`): printable, no spaces, so it names one group.
 */
export const robotsUserAgentSchema = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[\x21-\x7e]+$/, 'a user-agent token: printable characters without spaces, e.g. MyBot or MyBot/1.0')
  .optional()
  .describe("The robots.txt group to obey (besides FirecrawlAgent's); default TrawlBot");

export const crawlScopeShape = {
  includePaths: pathRegexes.describe('Regexes on the pathname; a page must match one'),
  excludePaths: pathRegexes.describe('Regexes on the pathname; a matching page is skipped'),
  regexOnFullURL: z.boolean().default(false).describe('Match path regexes against the full URL'),
  maxDiscoveryDepth: z.number().int().min(0).optional().describe('Link hops from the start page'),
  crawlEntireDomain: z.boolean().default(false).describe('Follow links outside the start path'),
  allowSubdomains: z.boolean().default(false).describe('Follow subdomains of the start domain'),
  allowExternalLinks: z.boolean().default(false).describe('Follow links to other sites'),
  deduplicateSimilarURLs: z.boolean().default(true).describe('Treat www/http(s)/slash/index variants as one'),
  delay: z.number().min(0).max(60).optional().describe('Seconds between requests'),
  robotsUserAgent: robotsUserAgentSchema,
};
