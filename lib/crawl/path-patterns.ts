/**
 * includePaths / excludePaths: regular expressions, unanchored and without flags, as Firecrawl's
 * API documents them. Validated at submit time so a bad pattern is a 400, not a crawl that
 * silently matches nothing.
 *
 * They run on every link a crawl discovers, in a worker every team shares, so they run on RE2
 * (re2js, a pure-JavaScript port): matching takes time linear in the input whatever the pattern.
 * With V8's backtracking engine `^/(a+)+$` took 2.4 s on a 26-character path, doubling with each
 * character. Patterns are written in JavaScript's syntax, as Firecrawl's users write them:
 * re2js translates its spellings (`\u00e9`, `\u{1F600}`, `\cJ`) and runs lookbehinds in linear
 * time. RE2 has no backreferences and no lookahead; patterns that use them are refused with a
 * 400 that says so.
 */
import { RE2JS } from 're2js';
import { TrawlError } from '../errors.js';

/** Same cap as Firecrawl: more patterns than this is a mistake, and each costs time per link. */
export const MAX_PATH_PATTERNS = 1000;

export interface PathPattern {
  test(input: string): boolean;
}

/**
 * A named backreference: translation would read `\k<name>` as the literal `k<name>` (what
 * JavaScript does only when the pattern has no named group), so a pattern that uses one as a
 * backreference would silently match something else.
 */
const NAMED_BACKREFERENCE = /\\k</;

/** The RE2 program for a JavaScript-spelled pattern; throws a message for the user when it has none. */
function compile(pattern: string): RE2JS {
  if (NAMED_BACKREFERENCE.test(pattern)) throw new Error('named backreferences (\\k<name>) are not supported');
  return RE2JS.compile(RE2JS.translateRegExp(pattern), RE2JS.LOOKBEHINDS);
}

/** An error message fit for a 400 response, or undefined when every pattern compiles. */
export function validatePathRegexes(list: readonly string[]): string | undefined {
  if (list.length > MAX_PATH_PATTERNS) {
    return `At most ${MAX_PATH_PATTERNS} path patterns are allowed, got ${list.length}`;
  }
  for (const pattern of list) {
    try {
      compile(pattern);
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
  return list.map((pattern) => {
    const re = compile(pattern);
    return { test: (input) => re.matcher(input).find() };
  });
}
