import { describe, expect, it } from 'vitest';
import { scriptBody } from '../../../scraper/actions/execute-javascript.js';

describe('scriptBody', () => {
  it('returns the value of a script that is an expression', () => {
    for (const script of ['document.title', '1 + 2', '({ a: 1 })', 'await fetch("/x")', 'x // trailing comment']) {
      expect(scriptBody(script)).toBe(`return (${script}\n);`);
    }
  });

  it('runs any other script as a function body, which returns with `return`', () => {
    for (const script of ['return document.title', 'const a = 1; return a', 'if (x) y()', 'a; b']) {
      expect(scriptBody(script)).toBe(script);
    }
  });

  it('cannot be made to run code while deciding', () => {
    // Only compiled, never run: neither form touches globalThis here.
    scriptBody('globalThis.__trawlRan = true');
    scriptBody('globalThis.__trawlRan = true; return 1');
    expect((globalThis as Record<string, unknown>).__trawlRan).toBeUndefined();
  });
});
