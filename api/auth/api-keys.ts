import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../../lib/hash.js';

/** Endpoint classes a key can be limited to (`keys create --scopes`). */
export const SCOPES = ['scrape', 'crawl', 'map', 'search', 'extract', 'agent', 'usage', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

/** Keys look like Firecrawl's (`fc-...`) so tools that sanity-check the prefix accept them. */
export function generateApiKey(): string {
  return `fc-${randomBytes(20).toString('hex')}`;
}

export function hashApiKey(key: string): string {
  return sha256Hex(key);
}

export function keyPrefix(key: string): string {
  return key.slice(0, 11);
}

/**
 * What a key made without `--scopes` may use: every scope but `admin`, which a key gets only when
 * it is asked for. An admin key changes the team's policies (threat protection) and signs in to
 * the dashboard, so a key handed to a script or an agent should not carry it by accident.
 */
export const DEFAULT_SCOPES: readonly Scope[] = SCOPES.filter((s) => s !== 'admin');

/** Whether a key with these stored scopes (null: the defaults) may use `scope`. */
export function keyAllows(scopes: readonly string[] | null, scope: Scope): boolean {
  return (scopes ?? DEFAULT_SCOPES).includes(scope);
}

/** How a key's scopes read in listings. */
export function describeScopes(scopes: readonly string[] | null): string {
  return scopes ? scopes.join(', ') : 'all but admin';
}
