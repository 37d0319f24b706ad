import { describe, expect, it } from 'vitest';
import { exactMatch, fidelity, markdownText, readerText, shingleMatch, structureKept, tokenize } from '../../../bench/fidelity/score.js';
import { parseHtml } from '../../../scraper/html/dom.js';

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

  it('leaves out link and image targets whose brackets are escaped (`focal\\(0x0\\)`)', () => {
    const md = '![A map](https://cdn.example/f:focal\\(0x0:659x692\\):no_upscale\\(\\)/map_shot.png) and [the data](https://example.com/q\\)x) here';
    expect(tokenize(markdownText(md))).toEqual(['and', 'the', 'data', 'here']);
  });

  it('leaves list markers out, and code as written (`_start` is a word there, and a numbered line is code)', () => {
    const md = '1.  First step\n2.  Second\n    -   nested\n\nCall `_start` with *care*.\n\n```\n1. $_start\n```';
    expect(tokenize(markdownText(md))).toEqual(['First', 'step', 'Second', 'nested', 'Call', '_start', 'with', 'care', '1', '_start']);
  });

  it('counts an exact match as evaluate.py does: the same words, whatever the spacing and punctuation', () => {
    expect(exactMatch('One, two. Three', 'One two\n\nThree')).toBe(true);
    expect(exactMatch('One two three', 'Title One two three')).toBe(false);
  });

  it('reads an HTML article with a space between cells, items and lines, and none inside a word', () => {
    const doc = parseHtml('<table><tr><th>Pos</th><th>Name</th></tr><tr><td>1</td><td>Sam</td></tr></table><p>wo<b>rd</b> a<br>b</p>');
    expect(tokenize(readerText(doc))).toEqual(['Pos', 'Name', '1', 'Sam', 'word', 'a', 'b']);
  });

  it('counts the tables, code blocks, list items and figure captions whose words the output keeps in a row', () => {
    const article = parseHtml(
      '<table><tr><td>a1</td><td>b1</td></tr></table><pre>x = 1</pre><ul><li>first item</li><li>second item</li></ul>' +
        '<figure><img src="a.png"><figcaption>The harbour at dawn</figcaption></figure><figure><img src="b.png"><figcaption>A lost caption</figcaption></figure>',
    );
    const kept = structureKept(article, 'a1 b1 and first item, then x = 1. The harbour at dawn');
    expect(kept).toEqual({
      tables: { kept: 1, total: 1 },
      'code blocks': { kept: 1, total: 1 },
      'list items': { kept: 1, total: 2 },
      'figure captions': { kept: 1, total: 2 },
    });
  });
});
