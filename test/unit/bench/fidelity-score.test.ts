import { describe, expect, it } from 'vitest';
import { fidelity, markdownText, shingleMatch, tokenize } from '../../../bench/fidelity/score.js';

describe('the fidelity scorer (article-extraction-benchmark definition)', () => {
  it('tokenizes words in any script, dropping punctuation', () => {
    expect(tokenize('Héllo, wörld! 東京 snake_case 42.')).toEqual(['Héllo', 'wörld', '東京', 'snake_case', '42']);
  });

  it('scores an exact match 1, a disjoint text 0, and extra boilerplate as lost precision only', () => {
    const article = 'one two three four five six seven eight';
    expect(fidelity([shingleMatch(article, article)])).toEqual({ f1: 1, precision: 1, recall: 1 });
    expect(fidelity([shingleMatch(article, 'alpha beta gamma delta epsilon')])).toEqual({ f1: 0, precision: 0, recall: 0 });
    const noisy = fidelity([shingleMatch(article, `${article} share this on social media now`)]);
    expect(noisy.recall).toBe(1);
    // 5 true 4-token shingles of 11 predicted.
    expect(noisy.precision).toBeCloseTo(5 / 11);
  });

  it('averages precision and recall over pages, so a long page weighs no more than a short one', () => {
    const short = shingleMatch('a b c d', 'a b c d');
    const long = shingleMatch(Array.from({ length: 400 }, (_, i) => `w${i}`).join(' '), 'x y z q');
    expect(fidelity([short, long]).recall).toBeCloseTo(0.5);
  });

  it('reads markdown as its visible text: no link targets, image references, emphasis or table rules', () => {
    const md = '# Title\n\nSee [the *docs*](https://example.com/a_(b)) and ![logo](/l.png) **now**.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```js\ncode_here()\n```';
    expect(tokenize(markdownText(md))).toEqual(['Title', 'See', 'the', 'docs', 'and', 'now', 'a', 'b', '1', '2', 'code_here']);
  });
});
