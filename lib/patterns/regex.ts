/**
 * User-supplied regular expressions (includePaths, excludePaths, anything new) run on RE2
 * (re2js, a pure-JavaScript port): matching takes time linear in the input whatever the pattern.
 * With V8's backtracking engine `^/(a+)+$` took 2.4 s on a 26-character path, doubling with each
 * character. Patterns are written in JavaScript's syntax, as Firecrawl's users write them:
 * re2js translates its spellings (`\u00e9`, `\u{1F600}`, `\cJ`) and runs lookbehinds in linear
 * time. RE2 has no backreferences and no lookahead; patterns that use them are refused.
 */
import { RE2JS } from 're2js';

export interface UserRegex {
  /** Whether the pattern matches anywhere in `input` (unanchored, as `RegExp.test`). */
  test(input: string): boolean;
}

/**
 * A named backreference: translation would read `\k<name>` as the literal `k<name>` (what
 * JavaScript does only when the pattern has no named group), so a pattern that uses one as a
 * backreference would silently match something else.
 */
const NAMED_BACKREFERENCE = /\\k</;

/** The linear-time program for a JavaScript-spelled pattern; throws a message for the user when it has none. */
export function compileUserRegex(pattern: string, options: { caseInsensitive?: boolean } = {}): UserRegex {
  if (NAMED_BACKREFERENCE.test(pattern)) throw new Error('named backreferences (\\k<name>) are not supported');
  const flags = RE2JS.LOOKBEHINDS | (options.caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0);
  const re = RE2JS.compile(RE2JS.translateRegExp(pattern), flags);
  return { test: (input) => re.matcher(input).find() };
}
