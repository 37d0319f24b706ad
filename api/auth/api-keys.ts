import { createHash, randomBytes } from 'node:crypto';

/** Endpoint classes a key can be limited to (`keys create --scopes`). */
export const SCOPES = ['scrape', 'crawl', 'map', 'search', 'extract', 'agent', 'usage', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

/** Keys look like Firecrawl's (`fc-...`) so tools that sanity-check the prefix accept them. */
export function generateApiKey(): string {
  return `fc-${randomBytes(20).toString('hex')}`;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function keyPrefix(key: string): string {
  return key.slice(0, 11);
}
