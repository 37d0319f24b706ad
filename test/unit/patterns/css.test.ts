/** lib/patterns/css.ts: selectors whose cost css-select cannot bound are refused at submission. */
import { describe, expect, it } from 'vitest';
import { MAX_SELECTOR_COMPOUNDS, selectorProblem } from '../../../lib/patterns/css.js';
import { scrapeRequestSchema } from '../../../api/schemas/scrape.js';

describe('selectorProblem', () => {
  it('accepts the selectors people write', () => {
    for (const s of ['main', 'article .content > p', 'div.post, #comments', 'a[href^="/docs"]', 'li:not(.ad)', 'p:nth-child(2n+1)', 'ul > li + li ~ li']) {
      expect(selectorProblem(s), s).toBeUndefined();
    }
  });

  it('refuses what grows with the page squared or worse', () => {
    expect(selectorProblem(':has(:has(:has(span)))')).toMatch(/:has\(\) is not supported/);
    expect(selectorProblem('div:has(span)')).toMatch(/:has\(\)/);
    expect(selectorProblem('p:contains(x)')).toMatch(/:contains\(\)/);
    expect(selectorProblem(':not(:is(a b))')).toMatch(/nested/);
    expect(selectorProblem(Array.from({ length: MAX_SELECTOR_COMPOUNDS + 1 }, () => 'div').join(' '))).toMatch(/at most/);
    expect(selectorProblem('div[[[')).toMatch(/not a valid CSS selector/);
  });

  it('is applied to includeTags and excludeTags, naming the field', () => {
    const parsed = scrapeRequestSchema.safeParse({ url: 'https://example.com', excludeTags: ['div:has(p)'] });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['excludeTags', 0]);
  });
});
