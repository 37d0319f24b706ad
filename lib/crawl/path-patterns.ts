/**
 * includePaths / excludePaths: regular expressions, unanchored and without flags, as Firecrawl's
 * API documents them. Validated at submit time so a bad pattern is a 400, not a crawl that
 * silently matches nothing. They run on every link a crawl discovers, in a worker every team
 * shares, so they run in linear time (lib/patterns/regex.ts).
 */
import { TrawlError } from '../errors.js';
import { compileUserRegex, type UserRegex } from '../patterns/regex.js';

/** Same cap as Firecrawl: more patterns than this is a mistake, and each costs time per link. */
export const MAX_PATH_PATTERNS = 1000;

export type PathPattern = UserRegex;

/** An error message fit for a 400 response, or undefined when every pattern compiles. */
export function validatePathRegexes(list: readonly string[]): string | undefined {
  if (list.length > MAX_PATH_PATTERNS) {
    return `At most ${MAX_PATH_PATTERNS} path patterns are allowed, got ${list.length}`;
  }
  for (const pattern of list) {
    try {
      compileUserRegex(pattern);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      return `Invalid regular expression ${JSON.stringify(pattern)}: ${reason} (patterns run on RE2: no backreferences or lookahead)`;
    }
  }
  return undefined;
}

/** Compiles the patterns, throwing a BAD_REQUEST TrawlError for the first invalid one. */
export function compilePathRegexes(list: readonly string[]): PathPattern[] {
  const problem = validatePathRegexes(list);
  if (problem) throw new TrawlError('BAD_REQUEST', problem);
  return list.map((pattern) => compileUserRegex(pattern));
}
