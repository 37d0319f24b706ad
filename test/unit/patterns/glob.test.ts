/** lib/patterns/glob.ts: the same answers as the backtracking RegExp it replaced, in linear time. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileGlob, compileUrlGlob, globProblem, MAX_GLOB_STARS } from '../../../lib/patterns/glob.js';
import { matchesDomain } from '../../../lib/threat/policy.js';

/** The old semantics, as a reference on inputs small enough for backtracking to be harmless. */
function reference(glob: string): RegExp {
  return new RegExp(`^${glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*')}$`);
}

describe('compileGlob', () => {
  it('agrees with the regex semantics on small alphabets', () => {
    const text = fc.stringMatching(/^[ab.]{0,10}$/);
    const glob = fc.stringMatching(/^[ab.*]{0,8}$/);
    fc.assert(fc.property(glob, text, (g, t) => compileGlob(g)(t) === reference(g).test(t)), { numRuns: 5000 });
  });

  it('answers an adversarial glob at once where a backtracking RegExp takes minutes', () => {
    // With `.*` per star this is about 64^8 steps: the test's timeout would end it first.
    const glob = '*a'.repeat(MAX_GLOB_STARS - 1) + '*b';
    expect(compileGlob(glob)('a'.repeat(64))).toBe(false);
    expect(matchesDomain(`${'a'.repeat(60)}.com`, glob)).toBe(false);
    expect(compileGlob(glob)(`${'a'.repeat(64)}b`)).toBe(true);
  });

  it('caps the stars per glob', () => {
    expect(globProblem('*'.repeat(MAX_GLOB_STARS))).toBeUndefined();
    expect(globProblem('*a'.repeat(MAX_GLOB_STARS + 1))).toMatch(/at most 8/);
  });
});

describe('compileUrlGlob', () => {
  it('matches either scheme, the path glob, and subdomains only when asked', () => {
    const blog = compileUrlGlob('https://example.com/blog/*', false);
    expect(blog('http://example.com/blog/a/b?c=1')).toBe(true);
    expect(blog('https://example.com/about')).toBe(false);
    expect(blog('https://www.example.com/blog/a')).toBe(false);
    expect(blog('ftp://example.com/blog/a')).toBe(false);
    const anySub = compileUrlGlob('https://example.com/blog/*', true);
    expect(anySub('https://www.example.com/blog/a')).toBe(true);
    expect(anySub('https://a.b.example.com/blog/a')).toBe(true);
    expect(anySub('https://notexample.com/blog/a')).toBe(false);
    expect(compileUrlGlob('https://*.example.com/*', false)('https://docs.example.com/x')).toBe(true);
  });
});
