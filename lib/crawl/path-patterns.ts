/**
 * includePaths / excludePaths: regular expressions, unanchored and without flags, as Firecrawl's
 * API documents them. Validated at submit time so a bad pattern is a 400, not a crawl that
 * silently matches nothing.
 *
 * They run on every link a crawl discovers, in a worker every team shares, so they run on RE2
 * (re2js, a pure-JavaScript port): matching takes time linear in the input whatever the pattern.
 * With V8's backtracking engine `^/(a+)+$` took 2.4 s on a 26-character path, doubling with each
 * character. RE2 has no backreferences and no lookaround; patterns that use them are refused
 * with a 400 that says so.
 */
import { RE2JS } from 're2js';
import { TrawlError } from '../errors.js';

/** Same cap as Firecrawl: more patterns than this is a mistake, and each costs time per link. */
export const MAX_PATH_PATTERNS = 1000;

export interface PathPattern {
  test(input: string): boolean;
}

/** An error message fit for a 400 response, or undefined when every pattern compiles. */
export function validatePathRegexes(list: readonly string[]): string | undefined {
  if (list.length > MAX_PATH_PATTERNS) {
    return `At most ${MAX_PATH_PATTERNS} path patterns are allowed, got ${list.length}`;
  }
  for (const pattern of list) {
    try {
      RE2JS.compile(pattern);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      return `Invalid regular expression ${JSON.stringify(pattern)}: ${reason} (patterns run on RE2: no backreferences or lookaround)`;
    }
  }
  return undefined;
}

/** Compiles the patterns, throwing a BAD_REQUEST TrawlError for the first invalid one. */
export function compilePathRegexes(list: readonly string[]): PathPattern[] {
  const problem = validatePathRegexes(list);
  if (problem) throw new TrawlError('BAD_REQUEST', problem);
  return list.map((pattern) => {
    const re = RE2JS.compile(pattern);
    return { test: (input) => re.matcher(input).find() };
  });
}
