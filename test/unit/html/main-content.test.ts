import { describe, expect, it } from 'vitest';
import { FALLBACK_WARNING, NO_INCLUDE_MATCH_WARNING } from '../../../scraper/html/main-content.js';
import { transformHtml } from '../../../scraper/html/transform.js';
import { fixture, options } from './helpers.js';

const URL = 'https://blog.example.com/posts/widget-compiler';
const ARTICLE_PARAGRAPHS = [
  'The widget compiler used to take **forty seconds** on our largest project',
  'We started by profiling the parser',
  'We replaced the recursive descent with an explicit stack',
  'The table below compares the build times',
  'In the end the compiler became six times faster',
];
const BOILERPLATE = [
  'All posts', // nav
  'Sidebar story', // sidebar
  'MegaCloud', // ad inside the article
  'Copyright 2025', // footer
  'Accept all cookies', // cookie banner
  'Share on X', // share bar
];

describe('main content extraction', () => {
  const article = fixture('article.html');

  it('keeps every article paragraph, the table and the code block, and drops the chrome', () => {
    const page = transformHtml(article, URL, options());
    const markdown = page.markdown ?? '';
    for (const paragraph of ARTICLE_PARAGRAPHS) expect(markdown).toContain(paragraph);
    expect(markdown).toContain('| Project | Before | After |');
    expect(markdown).toContain('```ts\nexport function compile(source: string): Widget[] {');
    expect(markdown).toMatch(/^# Tuning the Widget Compiler\n/);
    for (const text of BOILERPLATE) expect(markdown).not.toContain(text);
    expect(page.warning).toBeUndefined();
  });

  it('applies the same selection to the html output', () => {
    const html = transformHtml(article, URL, options()).html ?? '';
    expect(html).toContain('<table>');
    expect(html).toContain('<code class="language-ts">');
    expect(html).not.toContain('Sidebar story');
    expect(html).not.toContain('<script');
  });

  it('keeps the whole page when onlyMainContent is off, minus scripts and styles', () => {
    const markdown = transformHtml(article, URL, options({ onlyMainContent: false })).markdown ?? '';
    expect(markdown).toContain('Sidebar story about databases');
    expect(markdown).toContain('Copyright 2025');
    expect(markdown).not.toContain('window.analytics');
    expect(markdown).not.toContain('float: right');
  });

  it('applies excludeTags on top of onlyMainContent', () => {
    const markdown = transformHtml(article, URL, options({ excludeTags: ['table', 'figure'] })).markdown ?? '';
    expect(markdown).toContain('We started by profiling the parser');
    expect(markdown).not.toContain('| Project |');
    expect(markdown).not.toContain('Flame graph');
  });

  it('lets includeTags pick exactly the matches, even parts the main-content heuristics would drop', () => {
    const page = transformHtml(article, URL, options({ includeTags: ['aside.sidebar', 'pre'] }));
    const markdown = page.markdown ?? '';
    expect(markdown).toContain('Sidebar story about queues');
    expect(markdown).toContain('```ts');
    expect(markdown).not.toContain('We started by profiling');
    expect(page.warning).toBeUndefined();
  });

  it('lets excludeTags win over includeTags', () => {
    const markdown = transformHtml(article, URL, options({ includeTags: ['.post-body'], excludeTags: ['pre'] })).markdown ?? '';
    expect(markdown).toContain('We started by profiling');
    expect(markdown).not.toContain('```');
  });

  it('says so when includeTags matches nothing', () => {
    const page = transformHtml(article, URL, options({ includeTags: ['.no-such-class'] }));
    expect(page.markdown).toBe('');
    expect(page.warning).toBe(NO_INCLUDE_MATCH_WARNING);
  });

  it('rejects an invalid selector with a non-retryable error', () => {
    expect(() => transformHtml(article, URL, options({ excludeTags: ['div[[['] }))).toThrow(
      expect.objectContaining({ name: 'NonRetryablePageError', code: 'BAD_REQUEST' }),
    );
  });

  it('falls back with a warning, not emptiness, when the main content is tiny', () => {
    const page = transformHtml(fixture('tiny-main.html'), 'https://status.example.com/', options());
    expect(page.markdown).toBe('All systems go.');
    expect(page.warning).toBe(FALLBACK_WARNING);
  });

  it('falls back to the full page when even the blocklist leaves nothing', () => {
    const html = '<body><nav><p>Only navigation text lives on this page.</p></nav></body>';
    const page = transformHtml(html, 'https://x.example/', options());
    expect(page.markdown).toBe('Only navigation text lives on this page.');
    expect(page.warning).toBe(FALLBACK_WARNING);
  });

  it('never drops the text of inline elements', () => {
    const html = `<body><article>
      <p>Readers need <a href="/a">linked words</a>, <strong>bold words</strong>, <em>emphasis</em> and <code>code()</code> kept inside their sentences, because that is where the meaning is.</p>
      <p>A second paragraph makes this look like an article to the scorer, with enough words, commas, and length to count.</p>
    </article></body>`;
    const markdown = transformHtml(html, 'https://x.example/', options()).markdown ?? '';
    expect(markdown).toContain(
      'Readers need [linked words](https://x.example/a), **bold words**, *emphasis* and `code()` kept inside their sentences',
    );
  });
});
