import { describe, expect, it } from 'vitest';
import { rankBySearch, type RankableLink } from '../../../lib/crawl/map-rank.js';

const urls = (links: RankableLink[]): string[] => links.map((link) => link.url);

describe('rankBySearch', () => {
  const links: RankableLink[] = [
    { url: 'https://example.com/' },
    { url: 'https://example.com/blog/pricing-update-2023' },
    { url: 'https://example.com/about', title: 'About us', description: 'Our pricing philosophy' },
    { url: 'https://example.com/pricing' },
    { url: 'https://example.com/docs/api' },
  ];

  it('puts the page named by the query first, then pages mentioning it', () => {
    expect(urls(rankBySearch(links, 'pricing'))).toEqual([
      'https://example.com/pricing',
      'https://example.com/blog/pricing-update-2023',
      'https://example.com/about',
      'https://example.com/',
      'https://example.com/docs/api',
    ]);
  });

  it('keeps every link and the original order for non-matches', () => {
    const ranked = rankBySearch(links, 'nothing-matches-this');
    expect(ranked).toEqual(links);
    expect(ranked).not.toBe(links);
  });

  it('returns the input order for an empty or punctuation-only query', () => {
    expect(rankBySearch(links, '')).toEqual(links);
    expect(rankBySearch(links, '  --- ')).toEqual(links);
  });

  it('weights the title above the description', () => {
    const ranked = rankBySearch(
      [
        { url: 'https://example.com/a', description: 'How to install the CLI' },
        { url: 'https://example.com/b', title: 'Install the CLI' },
      ],
      'install',
    );
    expect(urls(ranked)).toEqual(['https://example.com/b', 'https://example.com/a']);
  });

  it('prefers links matching every query word over one word matched often', () => {
    const ranked = rankBySearch(
      [
        { url: 'https://example.com/api/api-api', title: 'API API API' },
        { url: 'https://example.com/guides/auth', title: 'API authentication' },
      ],
      'api authentication',
    );
    expect(urls(ranked)[0]).toBe('https://example.com/guides/auth');
  });

  it('boosts the exact phrase', () => {
    const ranked = rankBySearch(
      [
        { url: 'https://example.com/a', title: 'Started a new project: getting help' },
        { url: 'https://example.com/b', title: 'Getting started' },
      ],
      'getting started',
    );
    expect(urls(ranked)).toEqual(['https://example.com/b', 'https://example.com/a']);
  });

  it('matches a phrase written as a slug in the path', () => {
    const ranked = rankBySearch(
      [
        { url: 'https://example.com/started/getting' },
        { url: 'https://example.com/docs/getting-started' },
      ],
      'Getting Started',
    );
    expect(urls(ranked)[0]).toBe('https://example.com/docs/getting-started');
  });

  it('matches prefixes and plurals at a lower weight', () => {
    const ranked = rankBySearch(
      [
        { url: 'https://example.com/x' },
        { url: 'https://example.com/guides' },
        { url: 'https://example.com/guide' },
      ],
      'guide',
    );
    expect(urls(ranked)).toEqual([
      'https://example.com/guide',
      'https://example.com/guides',
      'https://example.com/x',
    ]);
  });

  it('ignores case, accents and stopwords', () => {
    const ranked = rankBySearch(
      [{ url: 'https://example.com/a' }, { url: 'https://example.com/b', title: 'Café Menu' }],
      'the CAFE menu',
    );
    expect(urls(ranked)[0]).toBe('https://example.com/b');
  });

  it('decodes escaped paths and uses subdomain labels', () => {
    const ranked = rankBySearch(
      [
        { url: 'https://example.com/other' },
        { url: 'https://example.com/caf%C3%A9' },
        { url: 'https://docs.example.com/' },
      ],
      'docs café',
    );
    expect(new Set(urls(ranked).slice(0, 2))).toEqual(
      new Set(['https://example.com/caf%C3%A9', 'https://docs.example.com/']),
    );
  });

  it('is stable for ties', () => {
    const tied = Array.from({ length: 20 }, (_, i) => ({ url: `https://example.com/guide/${i}`, title: 'Guide' }));
    expect(rankBySearch(tied, 'guide')).toEqual(tied);
  });

  it('keeps extra fields of the link objects', () => {
    const [first] = rankBySearch([{ url: 'https://example.com/a', extra: 1 }], 'a');
    expect(first).toEqual({ url: 'https://example.com/a', extra: 1 });
  });
});
