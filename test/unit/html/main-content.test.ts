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

describe('trusting the scorer\'s pick', () => {
  const sentence = (i: number) => `Paragraph ${i} of the story says something plain, with a comma or two, and ends as prose does.`;
  const comment = (i: number) =>
    `<li class="comment"><p>Reader ${i} wrote a long reply about the story, agreeing with some of it, disagreeing with the rest, and adding an anecdote of their own that runs on for a while.</p></li>`;

  it('keeps a short article under a long comment thread, without falling back', () => {
    const html = `<body><article class="post"><h1>Open thread</h1><div class="entry-content">
      <p>${sentence(1)}</p><p>${sentence(2)}</p><p>${sentence(3)}</p></div></article>
      <div id="comments" class="comments-area"><ol class="comment-list">${Array.from({ length: 30 }, (_, i) => comment(i)).join('')}</ol></div></body>`;
    const page = transformHtml(html, 'https://x.example/', options());
    expect(page.warning).toBeUndefined();
    expect(page.markdown).toContain(sentence(3));
    expect(page.markdown).not.toContain('Reader 1 wrote');
  });

  it('does not take a pick the cleaning gutted: the article went with the boilerplate', () => {
    // The article body shares a wrapper with a bar of share icons, and Readability's image rule (fewer
    // than one paragraph per two images) takes the wrapper: only the photo caption would be left.
    const plain = (i: number) => `Paragraph ${i} of the story says something plain and ends as prose does.`;
    const icons = Array.from({ length: 81 }, (_, i) => `<img src="/icon-${i}.png">`).join('');
    const paragraphs = Array.from({ length: 40 }, (_, i) => `<p>${plain(i)}</p>`).join('');
    const caption = 'Astronauts on a space walk during the construction of the station, in a file photo from the archive. '.repeat(6);
    const html = `<body><div class="story article"><h1>Hibernating astronauts</h1>
      <div class="image"><img src="/space.jpg"><p>${caption}</p></div>
      <div class="wrap"><span>${icons}</span>${paragraphs}</div>
      </div></body>`;
    const markdown = transformHtml(html, 'https://x.example/', options()).markdown ?? '';
    expect(markdown).toContain(plain(5));
  });

  it('falls back when the pick is a list of links, not an article', () => {
    const links = Array.from({ length: 8 }, (_, i) => `<p><a href="/story-${i}">Headline of another story number ${i}, linked from this page</a></p>`).join('');
    const html = `<body><div class="stories">${links}</div><div>Contact the newsroom</div></body>`;
    const page = transformHtml(html, 'https://x.example/', options());
    expect(page.warning).toBe(FALLBACK_WARNING);
    expect(page.markdown).toContain('Contact the newsroom');
  });
});

describe('the title heading', () => {
  const paragraphs = Array.from({ length: 4 }, (_, i) => `<p>Paragraph ${i} of the open thread says something plain, with a comma, and ends as prose does.</p>`).join('');

  it('brings back the article\'s own <h1> from outside the content, and never a site logo marked up as one', () => {
    const page = (logo: string) => `<html><head><title>September open thread | The Daily Post</title>
      <meta property="og:site_name" content="The Daily Post"></head><body>
      <div class="masthead">${logo}</div>
      <div class="post"><div class="post-header"><h1 class="entry-title">September open thread</h1></div>
      <div class="entry-content">${paragraphs}</div></div></body></html>`;
    const withTitle = transformHtml(page('<h1><a href="/">The Daily Post</a></h1>'), 'https://x.example/', options()).markdown ?? '';
    expect(withTitle).toMatch(/^# September open thread\n/);
    const logoOnly = page('<h1><a href="/">The Daily Post</a></h1>').replace('<h1 class="entry-title">September open thread</h1>', '');
    expect(transformHtml(logoOnly, 'https://x.example/', options()).markdown).not.toContain('The Daily Post');
  });
});

