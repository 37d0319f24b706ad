/**
 * Markdown is converted from a DOM built straight from the selection (turndown-tree.ts). It used to
 * be converted by serialising the selection to HTML and letting turndown parse that with domino;
 * that path is the reference here, and for every input both must give the same Markdown.
 *
 * The reference runs our rules on domino's nodes, so the rules must keep to DOM API that both DOMs
 * share (`childNodes`, not `children`, whose domino version is no array).
 */
import { describe, expect, it } from 'vitest';
import { renderPage } from '../../../bench/site/article.js';
import { isTag, isText, parseHtml, type AnyNode } from '../../../scraper/html/dom.js';
import { outputAttributes } from '../../../scraper/html/html-output.js';
import { selectContent } from '../../../scraper/html/main-content.js';
import { MAX_DEPTH, markdownService } from '../../../scraper/html/markdown.js';
import { extractMetadata } from '../../../scraper/html/metadata.js';
import { convert, type DomElement, type DomText, type DomNode } from '../../../scraper/html/turndown-dom.js';
import { selectionSource } from '../../../scraper/html/turndown-tree.js';
import { createUrlResolver, type UrlResolver } from '../../../scraper/html/urls.js';
import { fixture } from './helpers.js';

const PAGE_URL = 'https://site.example/dir/page.html';
const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr']);

/** What turndown was given before: the selection as HTML, elements below `maxDepth` as their text only. */
function referenceHtml(roots: readonly AnyNode[], skip: ReadonlySet<AnyNode>, resolve: UrlResolver, maxDepth: number): string {
  let out = '';
  let depth = 0;
  const stack: Array<AnyNode | string> = [...roots].reverse();
  while (stack.length > 0) {
    const item = stack.pop() as AnyNode | string;
    if (typeof item === 'string') {
      out += item;
      depth--;
    } else if (isText(item)) {
      out += item.data.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
    } else if (isTag(item) && !skip.has(item)) {
      const flattened = depth >= maxDepth;
      if (!flattened) {
        out += `<${item.name}`;
        for (const [name, value] of Object.entries(outputAttributes(item, resolve))) {
          out += ` ${name}="${value.replace(/[&"]/g, (c) => (c === '&' ? '&amp;' : '&quot;'))}"`;
        }
        out += '>';
      }
      if (VOID.has(item.name)) continue;
      depth++;
      stack.push(flattened ? '' : `</${item.name}>`);
      for (let i = item.children.length - 1; i >= 0; i--) stack.push(item.children[i] as AnyNode);
    }
  }
  return out;
}

/** Both conversions of one page's selection: `tree()` is the current one, `reference()` the old one. */
function conversions(html: string, onlyMainContent = false, removeBase64Images = true): { reference: () => string; tree: () => string } {
  const doc = parseHtml(html);
  const resolve = createUrlResolver(doc, PAGE_URL);
  const metadata = extractMetadata(doc, resolve);
  const titles = [metadata.title, metadata.ogTitle].map((t) => (typeof t === 'string' ? t : undefined));
  const { roots, skip } = selectContent(doc, { onlyMainContent, titles });
  const service = markdownService(removeBase64Images);
  return {
    reference: () => service.turndown(referenceHtml(roots, skip, resolve, MAX_DEPTH)),
    tree: () => convert(service, selectionSource(roots, skip, { resolve, maxDepth: MAX_DEPTH })),
  };
}

function expectSame(html: string, onlyMainContent = false, removeBase64Images = true): void {
  const { reference, tree } = conversions(html, onlyMainContent, removeBase64Images);
  expect(tree()).toBe(reference());
}

const LONG_DATA_URI = `data:image/png;base64,${'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ'.repeat(6)}`;

/** Markup that exercises every rule and every parser behaviour turndown-tree.ts reproduces. */
const SNIPPETS: Record<string, string> = {
  'nested lists, ordered list start, paragraphs in items':
    '<ul><li>one<ul><li>inner <b>bold</b></li><li>inner 2<ol><li>deep</li></ol></li></ul></li><li><p>para</p><p>two</p></li><li>last</li></ul><ol start="7"><li>seven</li><li>eight</li></ol><ol><li>a<ul><li>b</li></ul>tail</li></ol>',
  'tables with and without headers, spans, alignment, captions, pipes':
    '<table><caption>Cap <b>bold</b></caption><thead><tr><th align="right">A</th><th align="center">B|C</th><th>D</th></tr></thead><tbody><tr><td rowspan="2">r</td><td colspan="2">wide</td></tr><tr><td></td><td>x<br>y</td></tr></tbody></table>' +
    '<table><tr><td>no</td><td>header</td></tr><tr><td>1</td><td><p>p1</p><p>p2</p></td></tr></table>' +
    '<table role="presentation"><tr><td>layout</td><td>cells</td></tr></table><table><tr><td>single</td></tr></table>' +
    '<table><tr><td><table><tr><th>k</th><th>v</th></tr><tr><td>1</td><td>2</td></tr></table></td><td>outer</td></tr></table>',
  'stray table parts and text loose in tables':
    '<table><td>a</td> <td>b</td></table><table><tr><td>1</td></tr>loose<tr><td>2</td></tr></table>' +
    '<table>&nbsp;<tr><th>h</th><th>i</th></tr><tr><td>c</td><td>d</td></tr><div>after</div></table>' +
    '<table><form><tr><td>e</td><td>f</td></tr><tr><td>g</td><td>h</td></tr></form></table>' +
    '<table><tbody><td>x</td><td>y</td></tbody></table><table><tr><td>i</td><input type="hidden" name="z"></tr></table>' +
    '<tr><td>row outside a table</td></tr><td>cell outside</td><caption>caption outside</caption>' +
    '<table><colgroup><col><col></colgroup><col><tr><td>c1</td><td>c2</td></tr></table>',
  'code blocks, languages, line elements, gutters, fences in code':
    '<pre><code class="language-ts">const a = 1;\n  return a &amp;&amp; b &lt; c;</code></pre><pre class="lang-py">\nprint("x")\n</pre>' +
    '<pre data-lang="rb"><code>puts 1</code></pre><pre>line1<br>line2<br>line3</pre><pre>```\ninner\n```</pre>' +
    '<pre><code class="hljs"><div class="line"><span class="line-number">1</span>a</div><div class="line"><span class="line-number">2</span>b</div></code><button>Copy</button></pre>' +
    '<div class="highlight highlight-source-js"><pre>let x = 1;</pre></div><pre></pre><pre>  </pre><pre><b>\nbold first</b></pre>',
  'inline code with backticks and spaces':
    '<p>Run <code>a `b` c</code>, <code>``x``</code>, <code> spaced </code>, <code>`</code> and <code></code> now</p>',
  'links: block content, headings, javascript, skip links, parentheses, spaces, titles, empty':
    '<a href="/story"><div><h4>Headline</h4><span>3 min read</span></div></a><p><a href="../up.html" title="Up &quot;there&quot;">up</a> <a href="/x"></a> <a href="/y"> </a>' +
    '<a href="javascript:void(0)">js</a> <a href="#main">Skip to main content</a> <a href="/wiki/A_(b)">paren</a> <a href="/a)b">unbalanced</a> <a href="/sp ace">space</a> <a>no href</a></p>' +
    '<a href="/card"><h2>Card title</h2><p>Card text</p></a><table><tr><th><h3>In a cell</h3></th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>',
  'images: srcset, data URIs, alt text, links around images':
    `<p><img src="s.png" srcset="s.png 1x, l.png 2x" alt="Pic"> <img src="data:image/png;base64,AAAA" data-src="/lazy.png" alt="lazy">` +
    ` <img src="${LONG_DATA_URI}" alt="Chart [1]"> <img src="" alt="none"> <img alt="no src"> <a href="/big"><img src="t.png" alt="thumb" title="T"></a></p>`,
  'emphasis, strikethrough, blockquotes, rules, breaks, definition lists':
    '<p>a<strong> bold </strong>b <em>em</em><i> i </i><del>gone</del> <s></s> <b> </b></p><blockquote><p>quoted</p><blockquote>nested</blockquote></blockquote><hr>' +
    '<p>line one<br>line two<br><br><br>three</p><dl><dt>term</dt><dd>definition</dd></dl>',
  'whitespace edge cases':
    '<p>  lead <em> em </em> <strong>s</strong>trail  </p><div> <span> </span> </div><p>a\n\n\tb</p><span>inline</span> <span>run</span><p>\u00a0nbsp\u00a0</p>' +
    '<div>x<span> </span>y</div><p><span>a </span><span> b</span></p><p>tab\tsep</p>',
  'escaping, entities and text split by left-out nodes':
    '<p>snake_case 2 * 3 [x](y) `t` # h</p><p>- not a list</p><p>1. not a list</p><p>&lt;tag&gt; &amp; &quot;q&quot; &copy; &#x2603;</p>' +
    '<p>foo<script>x()</script>-bar</p><p>split<!-- c -->word</p><p><!-- c -->- dash after a comment</p><p>a<style>p{}</style>_b</p>',
  'line breaks and NULs as a parser reads them':
    '<pre>\r\nline1\r\nline2\r</pre><p>a\rb\r\nc</p><pre>x\r<!-- c -->\ny</pre><p>a&#13;b</p><p>nul\u0000char</p><textarea>\nhello</textarea><listing>\nlisted</listing>' +
    '<p><img src="i.png" alt="alt\r\n  line\rtwo\u0000" title="title\r\nnext"></p>',
  'forms, media, svg and math':
    '<form><label>Name <input type="text" value="v"></label><textarea>text</textarea><select><option>o</option></select><button>Go</button></form>' +
    '<p>Before<video><source src="v.mp4">fallback</video> <audio></audio><iframe src="/f"></iframe><canvas>c</canvas> after</p>' +
    '<p>x <svg viewBox="0 0 1 1"><title>icon</title><path d="M0"/><text>svg text </text></svg> y</p><p>a<svg><foreignObject><div>in foreign</div></foreignObject></svg> b</p>' +
    '<p>m<math><mi>x</mi><mo>=</mo><mn>1</mn></math>n</p><p>e<embed src="e"><object data="o">obj</object>f</p>' +
    '<p>a <select><option>b </option><optgroup label="g"><option> c</option></optgroup></select> d</p>',
  'task lists':
    '<ul><li><input type="checkbox" checked> done</li><li><input type="CHECKBOX"> todo</li><li><input type="radio"> radio</li></ul>',
  'parser-ignored and void tags': '<div><body><p>in body</p></body></div><html><p>in html</p></html><p><image src="a.png" alt="img">caption</image></p><p>x<bgsound>y</bgsound>z</p>',
  'deep nesting past the depth limit': `<p>start</p>${'<div>x '.repeat(400)}end${'<span>a'.repeat(250)}-b<pre>\npre below</pre>`,
};

describe('markdown from the selection tree equals the serialise-and-parse path', () => {
  for (const [name, body] of Object.entries(SNIPPETS)) {
    it(name, () => {
      const html = `<html><body>${body}</body></html>`;
      expectSame(html);
      expectSame(html, false, false);
    });
  }

  it('on a fragment without <html> or <body>', () => {
    expectSame('<h1>Title</h1><p>text <a href="/x">link</a></p><!-- c --><table><td>a</td><td>b</td></table>');
  });

  it('on the fixture pages, whole and main content', () => {
    for (const name of ['article.html', 'tiny-main.html', 'base-href.html']) {
      expectSame(fixture(name));
      expectSame(fixture(name), true);
    }
  });

  it('on pages of the bench site, whole and main content', () => {
    for (let i = 0; i < 6; i++) {
      const html = renderPage({ pages: 100, seed: 1 }, 'static', i * 13);
      expectSame(html);
      expectSame(html, true);
    }
  });
});

describe('markdown from the selection tree where the old path failed', () => {
  it('converts a frameset page (domino replaced the body, and turndown threw on the missing root)', () => {
    const { reference, tree } = conversions('<html><frameset><noframes><p>No frames</p></noframes></frameset></html>');
    expect(reference).toThrow(TypeError);
    expect(tree()).toBe('No frames');
  });

  it('reads <xmp> text as text (a parser read the serialised entities literally)', () => {
    const { reference, tree } = conversions('<html><body><xmp>a < b & c</xmp></body></html>');
    expect(reference()).toBe('a &lt; b &amp; c');
    expect(tree()).toBe('a < b & c');
  });
});

describe('turndown DOM', () => {
  function build(body: string): DomElement {
    const doc = parseHtml(`<html><body>${body}</body></html>`);
    const { roots, skip } = selectContent(doc, { onlyMainContent: false });
    return selectionSource(roots, skip, { resolve: createUrlResolver(doc, PAGE_URL), maxDepth: MAX_DEPTH }).cloneNode(true);
  }

  it('names HTML elements in upper case and SVG/MathML ones as written, HTML again inside foreignObject', () => {
    const root = build('<p><svg><foreignObject><div>x</div></foreignObject></svg><math><mi>y</mi></math></p>');
    const p = root.children[0] as DomElement;
    const svg = p.children[0] as DomElement;
    expect([p.nodeName, svg.nodeName, p.children[1]?.nodeName]).toEqual(['P', 'svg', 'math']);
    const foreign = svg.children[0] as DomElement;
    expect([foreign.nodeName, foreign.children[0]?.nodeName]).toEqual(['foreignobject', 'DIV']);
  });

  it('keeps text and elements in childNodes, elements only in children, siblings linked', () => {
    const root = build('<p>a<b>b</b>c<i>d</i></p>');
    const p = root.children[0] as DomElement;
    expect(p.childNodes.map((n) => n.nodeName)).toEqual(['#text', 'B', '#text', 'I']);
    expect(p.children.map((n) => n.nodeName)).toEqual(['B', 'I']);
    expect(p.lastElementChild?.nodeName).toBe('I');
    expect(p.firstChild?.nextSibling?.nextSibling?.previousSibling?.nodeName).toBe('B');
    expect((p.children[0] as DomElement).parentElement).toBe(p);
  });

  it('recomputes textContent after text is edited or nodes are removed', () => {
    const root = build('<p>one <b>two</b> three</p>');
    const p = root.children[0] as DomElement;
    expect(p.textContent).toBe('one two three');
    (p.firstChild as DomText).data = 'ONE ';
    expect(p.textContent).toBe('ONE two three');
    p.removeChild(p.children[0] as DomElement);
    expect(p.textContent).toBe('ONE  three');
    expect(p.childNodes).toHaveLength(2);
  });

  it('finds descendants by tag name and the closest ancestor by tag name', () => {
    const root = build('<div><a href="/x"><span><img src="i.png"><br></span></a><svg><a><text>t</text></a></svg></div>');
    const div = root.children[0] as DomElement;
    expect(div.getElementsByTagName('IMG').map((n) => n.getAttribute('src'))).toEqual(['https://site.example/dir/i.png']);
    expect(div.getElementsByTagName('a')).toHaveLength(2);
    expect(div.getElementsByTagName('A')).toHaveLength(1);
    const img = div.getElementsByTagName('img')[0] as DomElement;
    expect(img.closest('a')?.getAttribute('href')).toBe('https://site.example/x');
    expect(img.closest('table')).toBeNull();
    expect(() => img.closest('div > a')).toThrow();
  });

  it('reflects attributes the rules read, and no prototype keys as attributes', () => {
    const root = build('<ul><li><input type="Checkbox" checked class="c"></li></ul><p class="x y">z</p>');
    const input = root.getElementsByTagName('input')[0] as DomElement;
    expect([input.type, input.checked, input.className]).toEqual(['checkbox', true, 'c']);
    const p = root.getElementsByTagName('p')[0] as DomElement;
    expect([p.type, p.checked, p.className, p.getAttribute('constructor')]).toEqual([undefined, false, 'x y', null]);
  });

  it('gives a new tree on every cloneNode(true), so a conversion cannot change the next one', () => {
    const doc = parseHtml('<html><body><p>text</p></body></html>');
    const { roots, skip } = selectContent(doc, { onlyMainContent: false });
    const source = selectionSource(roots, skip, { resolve: createUrlResolver(doc, PAGE_URL), maxDepth: MAX_DEPTH });
    const first = source.cloneNode(true);
    ((first.children[0] as DomElement).firstChild as DomNode & { data: string }).data = 'changed';
    expect(source.cloneNode(true).textContent).toBe('text');
    expect(source.cloneNode(true)).not.toBe(source.cloneNode(true));
  });
});
