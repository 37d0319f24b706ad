import { describe, expect, it } from 'vitest';
import { transformHtml } from '../../../scraper/html/transform.js';
import { fixture, options } from './helpers.js';

const ALL = { markdown: true, html: true, rawHtml: true, links: true, images: true };

describe('transformHtml: links, images and raw HTML', () => {
  const html = fixture('base-href.html');
  const page = transformHtml(html, 'https://site.example/some/page', options({ onlyMainContent: false, want: ALL }));

  it('resolves links against <base href>, keeps http(s) only, and lists each page once', () => {
    expect(page.links).toEqual([
      'https://cdn.example.org/docs/v2/guide/intro.html',
      'https://cdn.example.org/root.html',
      'https://other.example.net/x',
      'https://cdn.example.org/docs/v2/',
    ]);
  });

  it('lists absolute image URLs once each, taking the largest srcset candidate', () => {
    expect(page.images).toEqual(['https://cdn.example.org/docs/v2/img/a.png', 'https://cdn.example.org/docs/v2/img/b-2x.png']);
  });

  it('makes hrefs, srcs and srcsets absolute in markdown and html', () => {
    expect(page.markdown).toContain('[the intro](https://cdn.example.org/docs/v2/guide/intro.html)');
    expect(page.markdown).toContain('[part two](https://cdn.example.org/docs/v2/#part-2)');
    expect(page.html).toContain('<a href="https://cdn.example.org/root.html">');
    expect(page.html).toContain(
      'srcset="https://cdn.example.org/docs/v2/img/b-1x.png 1x, https://cdn.example.org/docs/v2/img/b-2x.png 2x"',
    );
    expect(page.html).toContain('src="https://cdn.example.org/docs/v2/img/b-2x.png"');
  });

  it('returns rawHtml untouched', () => {
    expect(page.rawHtml).toBe(html);
  });

  it('takes links from the whole page even when only the main content is converted', () => {
    const article = transformHtml(fixture('article.html'), 'https://blog.example.com/posts/x', options({ want: ALL }));
    expect(article.links).toContain('https://blog.example.com/careers');
    expect(article.links).toContain('https://blog.example.com/terms');
    expect(article.links?.filter((l) => l.startsWith('https://blog.example.com/terms'))).toHaveLength(1);
  });

  it('computes only the outputs asked for', () => {
    const only = transformHtml(html, 'https://site.example/', options({ want: { markdown: false, html: false } }));
    expect(Object.keys(only)).toEqual(['metadata']);
  });
});

describe('transformHtml: metadata', () => {
  const { metadata } = transformHtml(fixture('article.html'), 'https://blog.example.com/posts/x', options());

  it('reads title, joined descriptions, language, keywords, robots and an absolute favicon', () => {
    expect(metadata).toMatchObject({
      title: 'Tuning the Widget Compiler | Example Engineering',
      description: 'How we made the widget compiler fast., A deep dive.',
      language: 'en-US',
      keywords: 'compilers, performance',
      robots: 'index, follow',
      favicon: 'https://blog.example.com/static/favicon.png',
    });
  });

  it('maps og:*, article:* and dc.* tags to Firecrawl keys', () => {
    expect(metadata).toMatchObject({
      ogTitle: 'Tuning the Widget Compiler',
      ogDescription: 'How we made it fast',
      ogUrl: 'https://blog.example.com/posts/widget-compiler',
      ogImage: 'https://blog.example.com/img/cover.png',
      ogSiteName: 'Example Engineering',
      ogLocale: 'en_US',
      ogLocaleAlternate: ['fr_FR', 'de_DE'],
      publishedTime: '2025-03-04T05:06:07Z',
      modifiedTime: '2025-03-05T00:00:00Z',
      articleSection: 'Performance',
      articleTag: ['compilers', 'rust'],
      dcDate: '2025-03-04',
      dcTermsCreated: '2025-03-01',
    });
  });

  it('keeps every meta tag verbatim too, as an array when repeated', () => {
    expect(metadata['twitter:card']).toBe('summary_large_image');
    expect(metadata['og:title']).toBe('Tuning the Widget Compiler');
    expect(metadata['article:tag']).toEqual(['compilers', 'rust']);
    expect(metadata['DC.date']).toBe('2025-03-04');
  });

  it('keeps one alternate locale as an array and lets no meta tag set response fields', () => {
    const html = `<html><head><meta property="og:locale:alternate" content="fr_FR"><meta name="url" content="x">
      <meta name="__proto__" content="x"><meta itemprop="price" content="9.99"></head><body><svg><title>icon</title></svg></body></html>`;
    const page = transformHtml(html, 'https://x.example/', options());
    expect(page.metadata.ogLocaleAlternate).toEqual(['fr_FR']);
    expect(page.metadata.url).toBeUndefined();
    expect(Object.getPrototypeOf(page.metadata)).toBe(Object.prototype);
    expect(page.metadata.price).toBe('9.99');
    expect(page.metadata.title).toBeUndefined();
  });
});
