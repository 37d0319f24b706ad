/**
 * Crawl options from a sentence (`/v2/crawl/params-preview`), with Firecrawl's prompt. The model
 * gets a strict schema of the options it may set, by name and type; the API checks each value
 * with the crawl schema itself (bounds included) and names what it drops, so a model can suggest
 * but never smuggle in an option, and one bad value does not cost the rest.
 */
import type { ModelClient, TokenUsage } from './model-client.js';

const OPTION_SCHEMA = {
  type: 'object',
  properties: {
    includePaths: { type: 'array', items: { type: 'string' }, description: 'Regexes on the URL pathname; only matching pages are crawled, e.g. ["^/blog/.*"]' },
    excludePaths: { type: 'array', items: { type: 'string' }, description: 'Regexes on the URL pathname; matching pages are skipped' },
    maxDiscoveryDepth: { type: 'integer', description: 'Link hops from the start page' },
    crawlEntireDomain: { type: 'boolean', description: 'Follow links outside the start path, on the same domain' },
    allowExternalLinks: { type: 'boolean', description: 'Follow links to other sites' },
    allowSubdomains: { type: 'boolean', description: 'Follow links to subdomains' },
    sitemap: { type: 'string', enum: ['include', 'skip', 'only'], description: 'Use the sitemap with links, never, or only the sitemap' },
    ignoreQueryParameters: { type: 'boolean', description: 'Treat URLs that differ only in their query as one' },
    deduplicateSimilarURLs: { type: 'boolean' },
    delay: { type: 'number', description: 'Seconds between requests' },
    limit: { type: 'integer', description: 'Most pages to crawl' },
  },
  additionalProperties: false,
};

export async function crawlOptionsFromPrompt(
  client: ModelClient,
  req: { url: string; prompt: string; signal?: AbortSignal },
): Promise<{ options: Record<string, unknown>; usage: TokenUsage }> {
  const { object, usage } = await client.generateJson<Record<string, unknown>>({
    system:
      'You are a web crawler configuration expert. Given a start URL and a request in natural language, set only the crawler options the request implies, and leave every other option out. Path options are regular expressions on the URL pathname.',
    prompt: `Start URL: ${req.url}\nGenerate crawler options for: ${req.prompt}`,
    schema: OPTION_SCHEMA,
    signal: req.signal,
  });
  return { options: object, usage };
}
