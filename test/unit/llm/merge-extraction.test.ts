import { describe, expect, it } from 'vitest';
import { mergeExtraction } from '../../../llm/merge-extraction.js';

describe('mergeExtraction', () => {
  it('takes scalars from the first page that states them, concatenates arrays without duplicates, and names sources', () => {
    const merged = mergeExtraction([
      { url: 'a', answer: { name: '', tags: ['x'] } },
      { url: 'b', answer: { name: 'Acme', tags: ['x', 'y'] } },
      { url: 'c', answer: { name: 'Other', tags: [] } },
    ]);
    expect(merged.data).toEqual({ name: 'Acme', tags: ['x', 'y'] });
    // c's name lost to b's, and its tags added nothing: it is no source.
    expect(merged.sources).toEqual({ name: ['b'], tags: ['a', 'b'] });
  });

  it('answers an empty object when no page answered anything', () => {
    expect(mergeExtraction([])).toEqual({ data: {}, sources: {} });
  });
});
