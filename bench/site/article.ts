/**
 * One synthetic article page of the bench site, as a news or docs site would serve it: header
 * with navigation, sidebar, footer, and an article of prose, tables, code blocks, lists, quotes
 * and images. Page `i` is the same bytes for a given seed and page count, whichever order pages
 * are asked for in.
 *
 * Two variants share the article: `static` serves it as HTML; `js` serves an empty shell whose
 * script holds the article and renders it, so its content appears only after JavaScript runs.
 */
import { createPrng, pageSeed, type Prng } from './prng.js';

export type SiteVariant = 'static' | 'js';

export interface SiteShape {
  seed: number;
  /** Pages per variant; links only point at pages below this. */
  pages: number;
}

/** Path of page `index` in a variant; page 0 is the variant's home. */
export function pagePath(variant: SiteVariant, index: number): string {
  return index === 0 ? `/${variant}/` : `/${variant}/articles/${index}`;
}

const WORDS = (
  'system data model request worker queue latency crawler page browser render network cache index ' +
  'server client storage memory thread process signal result error retry budget limit stream buffer ' +
  'parser token schema record event history batch frontier policy header footer sidebar article ' +
  'section table column value report metric median sample profile engine market river garden city ' +
  'winter summer journey harbour mountain village station library museum theatre kitchen window ' +
  'simple careful rapid quiet modern ancient gentle bright narrow steady hidden public private ' +
  'measure build deliver improve compare observe predict explain describe collect consider ' +
  'the a of and to in for with on by from at as over under between through after before during ' +
  'we they it this that these those which while because although however therefore meanwhile'
).split(' ');

const TOPICS = ['Engineering', 'Operations', 'Research', 'Travel', 'Culture', 'Science'];
const AUTHORS = ['Ada Lovell', 'Brian Kerr', 'Chen Wei', 'Dana Ortiz', 'Emeka Obi', 'Freya Lind'];
const LANGUAGES = ['ts', 'python', 'go', 'sql', 'bash'];

const STYLE = `<style>
body{font-family:Georgia,serif;margin:0;color:#222;background:#fafafa}
.site-header{display:flex;justify-content:space-between;padding:12px 24px;background:#123;color:#fff}
.site-header a{color:#fff;text-decoration:none;margin-right:16px}
.layout{display:grid;grid-template-columns:260px 1fr;gap:32px;max-width:1200px;margin:0 auto;padding:24px}
.sidebar{font-size:14px;border-right:1px solid #ddd;padding-right:16px}
article h1{font-size:34px;line-height:1.2}article h2{margin-top:32px}
article table{border-collapse:collapse;width:100%}article td,article th{border:1px solid #ccc;padding:4px 8px}
pre{background:#f0f0f0;padding:12px;overflow:auto}figure{margin:24px 0}figcaption{font-size:13px;color:#666}
.site-footer{background:#eee;padding:24px;font-size:13px}.pager{display:flex;justify-content:space-between}
</style>`;

function words(rng: Prng, count: number): string {
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(rng.pick(WORDS));
  return out.join(' ');
}

function sentence(rng: Prng): string {
  const text = words(rng, rng.int(8, 22));
  return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
}

function titleOf(index: number): string {
  const rng = createPrng(pageSeed(0x7e57, index));
  const text = words(rng, rng.int(4, 8));
  return `${text[0]!.toUpperCase()}${text.slice(1)} (${index})`;
}

class ArticleWriter {
  private inTextLinks = 0;

  constructor(
    private readonly rng: Prng,
    private readonly shape: SiteShape,
    private readonly variant: SiteVariant,
  ) {}

  link(index: number, text = titleOf(index)): string {
    return `<a href="${pagePath(this.variant, index)}">${text}</a>`;
  }

  randomPage(): number {
    return this.rng.int(0, this.shape.pages - 1);
  }

  paragraph(): string {
    const { rng } = this;
    const parts: string[] = [];
    const sentences = rng.int(3, 7);
    for (let i = 0; i < sentences; i++) {
      let s = sentence(rng);
      const roll = rng.next();
      if (roll < 0.12) s = s.replace(/^(\S+ \S+)/, '<strong>$1</strong>');
      else if (roll < 0.22) s = s.replace(/ (\S+)\.$/, ' <em>$1</em>.');
      else if (roll < 0.3) s = s.replace(/ (\S+) /, ' <code>$1()</code> ');
      else if (roll < 0.38 && this.inTextLinks < 4) {
        this.inTextLinks++;
        s = `${s} See ${this.link(this.randomPage(), words(rng, rng.int(2, 4)))}.`;
      }
      parts.push(s);
    }
    return `<p>${parts.join(' ')}</p>`;
  }

  table(): string {
    const { rng } = this;
    const cols = rng.int(3, 5);
    const head = Array.from({ length: cols }, () => `<th>${words(rng, rng.int(1, 2))}</th>`).join('');
    const rows = Array.from({ length: rng.int(5, 12) }, () => {
      const cells = Array.from({ length: cols }, (_, c) =>
        c === 0 ? `<td>${words(rng, rng.int(1, 3))}</td>` : `<td>${(rng.next() * 1000).toFixed(rng.int(0, 2))}</td>`,
      );
      return `<tr>${cells.join('')}</tr>`;
    });
    return `<table><caption>${sentence(rng)}</caption><thead><tr>${head}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
  }

  code(): string {
    const { rng } = this;
    const lines = Array.from({ length: rng.int(8, 28) }, (_, i) => {
      const indent = '  '.repeat(rng.int(0, 3));
      const name = rng.pick(WORDS);
      return i % 5 === 0
        ? `${indent}// ${words(rng, rng.int(3, 8))}`
        : `${indent}const ${name}${i} = ${rng.pick(WORDS)}(${rng.int(0, 999)}, &quot;${rng.pick(WORDS)}&quot;) &amp;&amp; ${name};`;
    });
    return `<pre><code class="language-${rng.pick(LANGUAGES)}">${lines.join('\n')}</code></pre>`;
  }

  figure(): string {
    const { rng } = this;
    const image = rng.int(1, 40);
    return `<figure><img src="/assets/img/${image}.png" alt="${words(rng, 4)}" width="640" height="360" loading="lazy"><figcaption>${sentence(rng)}</figcaption></figure>`;
  }

  list(): string {
    const { rng } = this;
    const tag = rng.next() < 0.5 ? 'ul' : 'ol';
    const items = Array.from({ length: rng.int(3, 7) }, () => `<li>${sentence(rng)}</li>`);
    return `<${tag}>${items.join('')}</${tag}>`;
  }

  section(): string {
    const { rng } = this;
    const blocks = [`<h2 id="s${rng.int(1, 1e6)}">${words(rng, rng.int(3, 6))}</h2>`];
    for (let i = rng.int(2, 4); i > 0; i--) blocks.push(this.paragraph());
    const extra = rng.next();
    if (extra < 0.3) blocks.push(this.table());
    else if (extra < 0.55) blocks.push(this.code());
    else if (extra < 0.75) blocks.push(this.figure());
    else if (extra < 0.88) blocks.push(this.list());
    else blocks.push(`<blockquote><p>${sentence(rng)} ${sentence(rng)}</p></blockquote>`);
    blocks.push(this.paragraph());
    return `<section>${blocks.join('\n')}</section>`;
  }
}

/** The page body: everything inside `<body>`; the JS variant renders exactly this. */
function pageBody(shape: SiteShape, variant: SiteVariant, index: number): { title: string; body: string } {
  const rng = createPrng(pageSeed(shape.seed, index));
  const writer = new ArticleWriter(rng, shape, variant);
  const title = titleOf(index);
  const topic = TOPICS[index % TOPICS.length]!;
  const navPages = [1, 2, 3, 4, 5].filter((p) => p < shape.pages);
  const header = `<header class="site-header"><a class="logo" href="${pagePath(variant, 0)}">Bench Journal</a>
<nav class="main-nav"><ul><li>${writer.link(0, 'Home')}</li>${navPages.map((p, i) => `<li>${writer.link(p, TOPICS[i]!)}</li>`).join('')}</ul></nav>
<form class="search" action="/search"><input type="search" name="q" placeholder="Search"><button>Go</button></form></header>`;
  const related = Array.from({ length: 8 }, () => `<li>${writer.link(writer.randomPage())}</li>`).join('');
  const sidebar = `<aside class="sidebar"><h3>Related</h3><ul>${related}</ul>
<h3>Newsletter</h3><p>${sentence(rng)}</p><form><input type="email" placeholder="you@example.com"><button>Subscribe</button></form>
<h3>Tags</h3><p>${Array.from({ length: 6 }, () => `<span class="tag">${rng.pick(WORDS)}</span>`).join(' ')}</p></aside>`;
  const footer = `<footer class="site-footer"><p>© 2026 Bench Journal. ${sentence(rng)}</p>
<ul><li>${writer.link(Math.min(6, shape.pages - 1), 'About us')}</li><li><a href="https://example.com/privacy">Privacy</a></li><li><a href="https://example.com/terms">Terms</a></li></ul></footer>`;

  // Sizes spread over 20–60 KB, as real article pages do; the page chrome above is about 4 KB.
  const target = rng.int(20_000, 57_000);
  const sections: string[] = [];
  let size = header.length + sidebar.length + footer.length + 1_500;
  while (size < target) {
    const next = writer.section();
    sections.push(next);
    size += next.length;
  }
  const prev = index > 0 ? writer.link(index - 1, '← Previous') : '';
  const next = writer.link((index + 1) % shape.pages, 'Next →');
  const article = `<main><article>
<nav class="breadcrumbs">${writer.link(0, 'Home')} › ${writer.link(navPages[index % navPages.length] ?? 0, topic)} › <span>${title}</span></nav>
<h1>${title}</h1><p class="byline">By ${AUTHORS[index % AUTHORS.length]} · <time datetime="2026-0${1 + (index % 9)}-1${index % 10}">${1 + (index % 28)} ${['March', 'June', 'October'][index % 3]} 2026</time></p>
<p class="lead"><strong>${sentence(rng)}</strong></p>
${sections.join('\n')}
<nav class="pager">${prev} ${next}</nav>
</article></main>`;
  return { title, body: `${header}\n<div class="layout">${sidebar}\n${article}</div>\n${footer}` };
}

function head(title: string, description: string): string {
  return `<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} | Bench Journal</title><meta name="description" content="${description}">
<meta property="og:title" content="${title}"><meta property="og:type" content="article">${STYLE}</head>`;
}

export function renderPage(shape: SiteShape, variant: SiteVariant, index: number): string {
  const { title, body } = pageBody(shape, variant, index);
  const description = `Article ${index} of the Bench Journal synthetic site.`;
  if (variant === 'static') return `<!doctype html>\n<html lang="en">${head(title, description)}\n<body>\n${body}\n</body></html>`;
  // `<\/` keeps the HTML parser from ending the script at a `</script>` inside the string.
  const payload = JSON.stringify(body).replaceAll('</', '<\\/');
  return `<!doctype html>\n<html lang="en">${head(title, description)}
<body><div id="root"></div>
<script>window.__ARTICLE__ = ${payload};</script>
<script>document.getElementById('root').innerHTML = window.__ARTICLE__;</script>
</body></html>`;
}
