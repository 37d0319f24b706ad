import { describe, expect, it } from 'vitest';
import { transformHtml } from '../../../scraper/html/transform.js';
import { options } from './helpers.js';

const page = (body: string) =>
  transformHtml(`<html><body>${body}</body></html>`, 'https://s.example/dir/', options({ want: { links: true, linkTexts: true } })).linkTexts;

describe('link texts (a query-directed crawl’s scores)', () => {
  it('gives each link its text, title and image alt, and its block’s text outside links', () => {
    expect(
      page(`<p>Our guide to <a href="a" title="Guide">installing solar panels</a> on flat roofs. See also <a href="/b"><img alt="roof diagram"></a>.</p>`),
    ).toEqual([
      { url: 'https://s.example/dir/a', text: 'installing solar panels Guide', around: 'Our guide to on flat roofs. See also .' },
      { url: 'https://s.example/b', text: 'roof diagram', around: 'Our guide to on flat roofs. See also .' },
    ]);
  });

  it('does not lend a menu entry its neighbours’ words', () => {
    expect(page(`<ul><li><a href="/solar">Solar</a></li><li><a href="/bread">Bread</a></li></ul>`)).toEqual([
      { url: 'https://s.example/solar', text: 'Solar', around: '' },
      { url: 'https://s.example/bread', text: 'Bread', around: '' },
    ]);
  });

  it('lists a URL once, with the text of every anchor to it, dropping fragments and non-http links', () => {
    expect(page(`<h2><a href="/x#top">Solar</a></h2><div><a href="/x">panels</a><a href="mailto:a@b.c">mail</a></div>`)).toEqual([
      { url: 'https://s.example/x', text: 'Solar panels', around: '' },
    ]);
  });

  it('keeps the text around every anchor to a URL: a bare menu entry does not hide a described link', () => {
    expect(page(`<nav><ul><li><a href="/a/7">section 1</a></li></ul></nav><ul><li>Solar panel installation: <a href="/a/7">read more</a></li></ul>`)).toEqual([
      { url: 'https://s.example/a/7', text: 'section 1 read more', around: 'Solar panel installation:' },
    ]);
  });

  it('caps the text around a link', () => {
    const [link] = page(`<p>${'word '.repeat(500)}<a href="/y">y</a></p>`)!;
    expect(link!.around.length).toBeLessThanOrEqual(300);
  });
});
