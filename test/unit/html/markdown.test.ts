import { describe, expect, it } from 'vitest';
import { transformHtml } from '../../../scraper/html/transform.js';
import { options } from './helpers.js';

/** Markdown of a body fragment, whole page (no main-content heuristics). */
function md(body: string, overrides: Parameters<typeof options>[0] = {}): string {
  const html = `<html><body>${body}</body></html>`;
  return transformHtml(html, 'https://site.example/dir/page.html', options({ onlyMainContent: false, ...overrides }))
    .markdown ?? '';
}

describe('markdown: tables', () => {
  it('renders GFM with a header row and outer pipes', () => {
    const table = '<table><thead><tr><th>Name</th><th>Value</th></tr></thead><tbody><tr><td>a</td><td>1</td></tr></tbody></table>';
    expect(md(table)).toBe('| Name | Value |\n| --- | --- |\n| a | 1 |');
  });

  it('uses the first row as the header when the table has no <th>', () => {
    expect(md('<table><tr><td>x</td><td>y</td></tr><tr><td>1</td><td>2</td></tr></table>')).toBe(
      '| x | y |\n| --- | --- |\n| 1 | 2 |',
    );
  });

  it('pads colspan and rowspan with empty cells and escapes pipes', () => {
    const table = `<table>
      <tr><th colspan="2">Both</th><th>C</th></tr>
      <tr><td rowspan="2">tall</td><td>a|b</td><td>c</td></tr>
      <tr><td>d</td><td>e</td></tr>
    </table>`;
    expect(md(table)).toBe('| Both |  | C |\n| --- | --- | --- |\n| tall | a\\|b | c |\n|  | d | e |');
  });

  it('keeps a caption and inline formatting in cells, on one line per row', () => {
    const table = '<table><caption>Sizes</caption><tr><th>Item</th></tr><tr><td><p>one</p><p>two <a href="/x">link</a></p></td></tr></table>';
    expect(md(table)).toBe('Sizes\n\n| Item |\n| --- |\n| one two [link](https://site.example/x) |');
  });

  it('reads layout tables (nested tables) as blocks, with the inner data table as GFM', () => {
    const table = `<table><tr><td><p>Intro text</p>
      <table><tr><th>k</th><th>v</th></tr><tr><td>1</td><td>2</td></tr></table></td></tr></table>`;
    expect(md(table)).toBe('Intro text\n\n| k | v |\n| --- | --- |\n| 1 | 2 |');
  });
});

describe('markdown: code', () => {
  it('fences <pre><code class="language-ts"> keeping newlines, indentation and tabs byte for byte', () => {
    const code = 'function f(a: number) {\n  if (a > 1) {\n\t\treturn a * 2; // <tag> & "quotes"\n  }\n\n  return 0;\n}';
    const escaped = code.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    expect(md(`<pre><code class="language-ts">${escaped}</code></pre>`)).toBe(`\`\`\`ts\n${code}\n\`\`\``);
  });

  it('takes the language from lang-x on <pre> and drops the newline right after <pre>', () => {
    expect(md('<pre class="lang-python">\nprint("hi")\n</pre>')).toBe('```python\nprint("hi")\n```');
  });

  it('keeps code split across highlighter spans and line divs, without the line-number gutter', () => {
    const pre = `<pre><code class="language-js"><div class="line"><span class="line-number">1</span><span class="kw">const</span> a = 1;</div><div class="line"><span class="line-number">2</span>  a++;</div></code></pre>`;
    expect(md(pre)).toBe('```js\nconst a = 1;\n  a++;\n```');
  });

  it('keeps runs of blank lines inside code while collapsing them outside', () => {
    expect(md('<p>a</p><br><br><br><pre>x\n\n\n\ny</pre><br><br><p>b</p>')).toBe('a\n\n```\nx\n\n\n\ny\n```\n\nb');
  });

  it('uses a longer fence when the code contains one', () => {
    expect(md('<pre>```\ninner\n```</pre>')).toBe('````\n```\ninner\n```\n````');
  });

  it('uses a longer delimiter for inline code that contains backticks', () => {
    expect(md('<p>Run <code>a `b` c</code> now</p>')).toBe('Run ``a `b` c`` now');
  });
});

describe('markdown: links, images and text', () => {
  it('writes ATX headings, "-" bullets, nested lists and numbered lists', () => {
    const body = '<h1>Title</h1><h3>Sub</h3><ul><li>one<ul><li>inner</li></ul></li><li>two</li></ul><ol start="3"><li>three</li><li>four</li></ol>';
    // Turndown pads list markers to four columns; renderers read it as the same list.
    expect(md(body)).toBe('# Title\n\n### Sub\n\n-   one\n    -   inner\n-   two\n\n3.  three\n4.  four');
  });

  it('makes link and image URLs absolute and leaves out empty links and images', () => {
    const body = '<p><a href="../up.html">up</a> <a href="/x"></a><a href="/y"> </a><img src=""><img alt="no src"> <a href="#top">top</a></p>';
    // The blank link's space stays next to the one after it: renderers collapse the two.
    expect(md(body)).toBe('[up](https://site.example/up.html)  [top](https://site.example/dir/page.html#top)');
  });

  it('uses the largest srcset candidate for images and links around images', () => {
    const body = '<a href="/big"><img src="s.png" srcset="s.png 1x, l.png 2x" alt="Pic"></a>';
    expect(md(body)).toBe('[![Pic](https://site.example/dir/l.png)](https://site.example/big)');
  });

  it('flattens block content inside a link (card links) into one line of link text', () => {
    const body = '<a href="/story"><div><h4>Headline</h4><span>3 min read</span></div></a>';
    expect(md(body)).toBe('[Headline 3 min read](https://site.example/story)');
  });

  it('replaces base64 images with a placeholder and keeps their alt text', () => {
    const body = '<p><img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==" alt="Chart of sales"></p>';
    expect(md(body)).toBe('![Chart of sales](<Base64-Image-Removed>)');
    expect(md(body, { removeBase64Images: false })).toContain('](data:image/png;base64,iVBOR');
  });

  it('escapes Markdown syntax in text', () => {
    // Turndown escapes every `_` and `*`, even where they could not start emphasis.
    const body = '<p>snake_case and 2 * 3 and a_b_c stay; *stars*, _under_, [x](y) and `tick` do not</p><p>- not a list</p><p>1. not a list either</p><p># not a heading</p>';
    expect(md(body)).toBe(
      'snake\\_case and 2 \\* 3 and a\\_b\\_c stay; \\*stars\\*, \\_under\\_, \\[x\\](y) and \\`tick\\` do not\n\n\\- not a list\n\n1\\. not a list either\n\n\\# not a heading',
    );
  });

  it('writes strikethrough, emphasis with outer spaces moved out, blockquotes and line breaks', () => {
    const body = '<p>a<strong> bold </strong>b <del>gone</del></p><blockquote><p>quoted</p><p>twice</p></blockquote><p>line one<br>line two</p>';
    // `<br>` is a hard break (two trailing spaces), not a soft one that renderers would join.
    expect(md(body)).toBe('a **bold** b ~~gone~~\n\n> quoted\n> \n> twice\n\nline one  \nline two');
  });

  it('collapses runs of blank lines and whitespace', () => {
    expect(md('<p>a</p><div>\n\n\n</div><p></p><br><br><br><p>  b   c  </p>')).toBe('a\n\nb c');
  });

  it('keeps the text of pathologically deep nesting without overflowing the stack', () => {
    const markdown = md(`<p>start</p>${'<div>x '.repeat(5000)}end`);
    expect(markdown).toMatch(/^start\n\nx\n\nx\n\n/);
    expect(markdown).toMatch(/x x x end$/);
  });

  it('leaves out form controls, media and scripts but keeps their surrounding text', () => {
    const body = '<p>Before<button>Click</button><select><option>x</option></select><svg><text>svg</text></svg><script>s()</script> after</p>';
    expect(md(body)).toBe('Before after');
  });
});
