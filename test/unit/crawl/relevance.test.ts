import { describe, expect, it } from 'vitest';
import { coverage, earlyStop, finalStop, linkScores, pageRelevance, queryTerms, stem, terms, urlTerms } from '../../../lib/crawl/relevance.js';
import type { FocusSettings } from '../../../lib/crawl/settings.js';

const focus = (over: Partial<FocusSettings> = {}): FocusSettings => ({
  query: 'solar panel installation',
  terms: queryTerms('solar panel installation'),
  minScore: 0.1,
  evidence: 3,
  ...over,
});

describe('terms', () => {
  it('folds plurals, case and accents, and drops stopwords', () => {
    expect(terms('The Solar Panels of Zürich, and their batteries')).toEqual(['solar', 'panel', 'zurich', 'their', 'battery']);
    // Harman's rules, quirks included: the query and the pages are folded alike.
    expect(['glass', 'status', 'boxes', 'series', 'ponies', 'shoes'].map(stem)).toEqual(['glass', 'status', 'boxe', 'sery', 'pony', 'shoe']);
  });

  it('takes a query’s distinct terms in its order, and none from stopwords alone', () => {
    expect(queryTerms('How to install solar panels: solar panel costs')).toEqual(['install', 'solar', 'panel', 'cost']);
    expect(queryTerms('the of and ...')).toEqual([]);
  });

  it('reads a URL’s path and query string, not its host', () => {
    expect(urlTerms('https://solar.example/guides/panel-installation?topic=roofs')).toEqual(['guide', 'panel', 'installation', 'topic', 'roof']);
    expect(urlTerms('not a url')).toEqual([]);
  });
});

describe('linkScores', () => {
  const query = focus().terms;

  it('ranks a link by its anchor text, its URL and the words around it, each within [0, 1)', () => {
    const [anchor, url, around, none] = linkScores(
      [
        { url: 'https://s.example/a', text: 'Solar panel installation guide', around: '' },
        { url: 'https://s.example/solar/panel-installation', text: 'read more', around: '' },
        { url: 'https://s.example/b', text: 'read more', around: 'Installing a solar panel on a flat roof' },
        { url: 'https://s.example/recipes/bread', text: 'Sourdough bread', around: 'Our favourite loaf' },
      ],
      query,
    );
    expect(none).toBe(0);
    for (const score of [anchor!, url!, around!]) {
      expect(score).toBeGreaterThan(0.1);
      expect(score).toBeLessThan(1);
    }
    // The anchor text counts twice, and matches all three terms.
    expect(anchor).toBeGreaterThan(around!);
  });

  it('scores a link matching more of the query higher', () => {
    const [one, two, three] = linkScores(
      [
        { url: 'https://s.example/1', text: 'solar', around: '' },
        { url: 'https://s.example/2', text: 'solar panel', around: '' },
        { url: 'https://s.example/3', text: 'solar panel installation', around: '' },
      ],
      query,
    );
    expect(one).toBeLessThan(two!);
    expect(two).toBeLessThan(three!);
  });

  it('does not punish a term every link of the page shares (no per-page IDF)', () => {
    const links = Array.from({ length: 20 }, (_, i) => ({ url: `https://s.example/solar/${i}`, text: `Solar article ${i}`, around: '' }));
    links.push({ url: 'https://s.example/x', text: 'installation', around: '' });
    const scores = linkScores(links, query);
    expect(Math.min(...scores)).toBeGreaterThan(0.1);
  });
});

describe('pageRelevance', () => {
  it('scores a page on the query and says which terms it holds', () => {
    const relevant = pageRelevance('# Installing solar panels\n\nA solar panel installation takes a day. Panels face south.', focus().terms);
    expect(relevant.hits).toEqual([true, true, true]);
    expect(relevant.score).toBeGreaterThan(0.4);
    const partial = pageRelevance('Our solar farm.', focus().terms);
    expect(partial.hits).toEqual([true, false, false]);
    expect(partial.score).toBeLessThan(relevant.score);
    expect(pageRelevance('Sourdough bread recipes', focus().terms)).toEqual({ score: 0, hits: [false, false, false] });
  });
});

describe('coverage and stops', () => {
  it('covers a term fully once `evidence` relevant pages hold it', () => {
    expect(coverage([0, 0, 0], 3)).toBe(0);
    expect(coverage([3, 3, 3], 3)).toBe(1);
    expect(coverage([6, 3, 0], 3)).toBe(0.6667);
    expect(coverage([1, 2, 3], 3)).toBe(0.6667);
    expect(coverage([], 3)).toBe(0);
  });

  it('stops early on coverage or saturation, only when asked', () => {
    const covered = { pagesPerTerm: [3, 3, 3], streak: 0, claimed: 10 };
    expect(earlyStop(covered, focus())).toBeUndefined();
    expect(earlyStop(covered, focus({ coverage: 1 }))).toBe('coverage_reached');
    expect(earlyStop({ ...covered, pagesPerTerm: [3, 3, 2] }, focus({ coverage: 1 }))).toBeUndefined();
    expect(earlyStop({ ...covered, streak: 24 }, focus({ saturation: 25 }))).toBeUndefined();
    expect(earlyStop({ ...covered, streak: 25 }, focus({ saturation: 25 }))).toBe('saturated');
    expect(earlyStop({ ...covered, streak: 30 }, focus({ coverage: 0.9, saturation: 25 }))).toBe('coverage_reached');
  });

  it('names the limit or the lack of relevant links when nothing stopped it early', () => {
    const progress = { pagesPerTerm: [1, 0, 0], streak: 0, claimed: 50 };
    expect(finalStop(progress, focus(), 50)).toBe('limit_reached');
    expect(finalStop(progress, focus(), 80)).toBe('no_relevant_pages');
    expect(finalStop({ ...progress, pagesPerTerm: [3, 3, 3] }, focus({ coverage: 1 }), 50)).toBe('coverage_reached');
  });
});
