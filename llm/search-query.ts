/**
 * A search query from an extraction prompt, for extract without `urls` or with
 * `enableWebSearch`: prompts are sentences, and search engines (the built-in index most of all,
 * which requires every word) want a few keywords, as Firecrawl's extract asks its model for.
 */
import type { ModelClient } from './model-client.js';

const QUERY_SCHEMA = {
  type: 'object',
  properties: { query: { type: 'string', description: 'Two to five keywords, no operators' } },
  required: ['query'],
  additionalProperties: false,
};

export async function searchQueryFromPrompt(client: ModelClient, prompt: string, signal?: AbortSignal): Promise<string> {
  const { object } = await client.generateJson<{ query: string }>({
    system: 'You turn a request for information into a short web search query: the two to five most distinctive keywords, without operators or quotes.',
    prompt: `Request: ${prompt}\nWrite the search query.`,
    schema: QUERY_SCHEMA,
    signal,
  });
  return object.query.trim();
}
