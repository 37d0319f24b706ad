/**
 * HTML to Markdown (CommonMark + GFM tables and strikethrough) straight from the parsed tree, one
 * visit per node. Turndown is not used: it clones the tree and calls `textContent` on every node,
 * which costs more than the rest of the pipeline together, and its GFM plugin keeps header-less
 * tables as raw HTML and needs `table.rows`, which lightweight DOMs lack.
 *
 * Output choices: ATX headings, "-" bullets, inline links with absolute URLs, fenced code keeping
 * the code byte for byte with the language from `language-x`/`lang-x`, no empty links or images,
 * and escapes only where a character would otherwise change the meaning.
 */
import { isTag, isText, textContent, type AnyNode, type Element } from './dom.js';
import { imageSource, type UrlResolver } from './urls.js';

export interface MarkdownOptions {
  resolve: UrlResolver;
  /** Replace data: image URLs with a placeholder (Firecrawl's `removeBase64Images`). */
  removeBase64Images: boolean;
}

export const BASE64_IMAGE_PLACEHOLDER = '<Base64-Image-Removed>';

export function toMarkdown(roots: readonly AnyNode[], skip: ReadonlySet<AnyNode>, options: MarkdownOptions): string {
  const converter = new Converter(skip, options);
  const out = new Blocks();
  for (const root of roots) converter.visit(root, out);
  return out.join('\n\n');
}

/** A fenced code block whose fence is longer than any backtick run at the start of a code line. */
export function fencedCodeBlock(code: string, language = ''): string {
  let longest = 2;
  for (const match of code.matchAll(/^ {0,3}(`{3,})/gm)) longest = Math.max(longest, (match[1] as string).length);
  const fence = '`'.repeat(longest + 1);
  return `${fence}${language}\n${code}\n${fence}`;
}

const IGNORED = new Set([
  'script', 'style', 'noscript', 'template', 'head', 'title', 'meta', 'link', 'base', 'svg', 'math', 'canvas',
  'iframe', 'object', 'embed', 'video', 'audio', 'source', 'track', 'map', 'area', 'select', 'option',
  'datalist', 'input', 'textarea', 'button',
]);
const CONTAINERS = new Set([
  'html', 'body', 'p', 'div', 'section', 'article', 'main', 'header', 'footer', 'nav', 'aside', 'figure',
  'figcaption', 'address', 'details', 'summary', 'dialog', 'form', 'fieldset', 'legend', 'center', 'hgroup',
  'search', 'dl', 'dt', 'dd', 'caption', 'thead', 'tbody', 'tfoot', 'tr', 'td', 'th', 'frameset', 'frame',
]);
/** HTML's collapsible whitespace, plus no-break spaces, which read as plain spaces in Markdown. */
const HTML_SPACES = /[ \t\n\r\f\u00a0]+/g;
const HEADING_LEVEL: Record<string, number> = { h1: 1, h2: 2, h3: 3, h4: 4, h5: 5, h6: 6 };
const LANGUAGE = /(?:^|\s)(?:language|lang)-([\w#+.-]+)/i;
const GUTTER =
  /(?:^|\s)(?:gutter|line-?numbers?|linenos?|lineno|hljs-ln-numbers|rouge-gutter|react-syntax-highlighter-line-number)(?:\s|$)/i;
const PRE_LINE_BLOCKS = new Set(['div', 'p', 'li', 'tr', 'section']);
const SKIP_LINK_TEXT = /^skip to (?:the )?(?:main )?content$/i;

interface Block {
  text: string;
  isList: boolean;
}

/** Finished blocks plus the inline content of the paragraph being built. */
class Blocks {
  readonly items: Block[] = [];
  inline = '';

  /** `inlineOnly`: the content ends up inside a link, emphasis or table cell, where block syntax cannot live. */
  constructor(readonly inlineOnly = false) {}

  flush(): void {
    const paragraph = finishParagraph(this.inline);
    this.inline = '';
    if (paragraph) this.items.push({ text: paragraph, isList: false });
  }

  add(text: string, isList = false): void {
    this.flush();
    if (text) this.items.push({ text, isList });
  }

  /** Inside list items a nested list follows its text on the next line, keeping the list tight. */
  join(separator: string, tightLists = false): string {
    this.flush();
    let out = '';
    for (const [i, block] of this.items.entries()) {
      if (i > 0) out += tightLists && block.isList ? '\n' : separator;
      out += block.text;
    }
    return out;
  }

  /** The content as one line of inline Markdown, for link text, emphasis and table cells. */
  inlineText(): string {
    const text = this.items.length === 0 ? this.inline : (this.flush(), this.items.map((b) => b.text).join(' '));
    return text.replace(/\s*\n\s*/g, ' ').replace(/ {2,}/g, ' ');
  }
}

/**
 * Broken pages can nest thousands of unclosed tags, and conversion recurses per element: below
 * this depth the content is kept as plain text so the stack cannot overflow.
 */
const MAX_DEPTH = 500;

class Converter {
  private depth = 0;

  constructor(
    private readonly skip: ReadonlySet<AnyNode>,
    private readonly options: MarkdownOptions,
  ) {}

  visit(node: AnyNode, out: Blocks): void {
    if (isText(node)) {
      out.inline += escapeText(node.data.replace(HTML_SPACES, ' '));
      return;
    }
    if (!isTag(node) || this.skip.has(node) || IGNORED.has(node.name)) return;
    if (this.depth >= MAX_DEPTH) {
      out.inline += escapeText(textContent(node).replace(HTML_SPACES, ' '));
      return;
    }
    this.depth++;
    this.visitElement(node, out);
    this.depth--;
  }

  private visitElement(node: Element, out: Blocks): void {
    const name = node.name;
    const level = HEADING_LEVEL[name];
    if (level !== undefined) {
      const text = this.inlineOf(node).trim();
      if (text) out.add(out.inlineOnly ? text : `${'#'.repeat(level)} ${text}`);
      return;
    }
    switch (name) {
      case 'br':
        out.inline += '\n';
        return;
      case 'hr':
        out.add('---');
        return;
      case 'pre':
        out.add(this.codeBlock(node));
        return;
      case 'blockquote':
        out.add(this.blockquote(node));
        return;
      case 'ul':
      case 'ol':
        out.add(this.list(node), true);
        return;
      case 'li':
        out.add(this.listItems([node], false, 1), true);
        return;
      case 'table':
        if (isLayoutTable(node)) break;
        out.add(this.table(node));
        return;
      case 'img':
        out.inline += this.image(node);
        return;
      case 'a':
        out.inline += this.link(node);
        return;
      case 'strong':
      case 'b':
        out.inline += this.wrap(node, '**');
        return;
      case 'em':
      case 'i':
        out.inline += this.wrap(node, '*');
        return;
      case 'del':
      case 's':
      case 'strike':
        out.inline += this.wrap(node, '~~');
        return;
      case 'code':
      case 'kbd':
      case 'samp':
      case 'tt':
        out.inline += inlineCode(textContent(node));
        return;
    }
    if (CONTAINERS.has(name) || name === 'table') {
      out.flush();
      this.visitChildren(node, out);
      out.flush();
      return;
    }
    this.visitChildren(node, out);
  }

  private visitChildren(el: Element, out: Blocks): void {
    for (const child of el.children) this.visit(child, out);
  }

  /** Children as inline Markdown, whitespace collapsed but the outer spaces kept for the caller. */
  private inlineOf(el: Element): string {
    const out = new Blocks(true);
    this.visitChildren(el, out);
    return out.inlineText();
  }

  private wrap(el: Element, delimiter: string): string {
    const content = this.inlineOf(el);
    const core = content.trim();
    if (!core) return content ? ' ' : '';
    if (core.startsWith(delimiter) && core.endsWith(delimiter)) return content;
    const lead = content.startsWith(' ') ? ' ' : '';
    const trail = content.endsWith(' ') ? ' ' : '';
    return `${lead}${delimiter}${core}${delimiter}${trail}`;
  }

  private link(a: Element): string {
    const content = this.inlineOf(a);
    const text = content.trim();
    if (!text) return content ? ' ' : '';
    const rawHref = a.attribs.href?.trim() ?? '';
    const href = this.options.resolve(rawHref);
    if (rawHref.startsWith('#') && SKIP_LINK_TEXT.test(text)) return '';
    const lead = content.startsWith(' ') ? ' ' : '';
    const trail = content.endsWith(' ') ? ' ' : '';
    if (!href || /^javascript:/i.test(href)) return `${lead}${text}${trail}`;
    return `${lead}[${text}](${linkDestination(href)})${trail}`;
  }

  private image(img: Element): string {
    const src = imageSource(img);
    if (!src) return '';
    let url: string | undefined;
    if (src.startsWith('data:')) url = this.options.removeBase64Images ? BASE64_IMAGE_PLACEHOLDER : src;
    else url = this.options.resolve(src);
    if (!url) return '';
    const alt = escapeText((img.attribs.alt ?? '').replace(/\s+/g, ' ').trim());
    return `![${alt}](${url === BASE64_IMAGE_PLACEHOLDER ? url : linkDestination(url)})`;
  }

  private blockquote(el: Element): string {
    const out = new Blocks();
    this.visitChildren(el, out);
    const text = out.join('\n\n');
    return text ? text.replace(/^/gm, '> ').replace(/^> $/gm, '>') : '';
  }

  private list(el: Element): string {
    const items = el.children.filter((c) => (isTag(c) && !this.skip.has(c)) || (isText(c) && /\S/.test(c.data)));
    const start = Number.parseInt(el.attribs.start ?? '', 10);
    return this.listItems(items, el.name === 'ol', Number.isFinite(start) ? start : 1);
  }

  private listItems(items: AnyNode[], ordered: boolean, start: number): string {
    const lines: string[] = [];
    let n = start;
    for (const item of items) {
      const out = new Blocks();
      if (isTag(item) && item.name === 'li') this.visitChildren(item, out);
      else this.visit(item, out);
      const content = out.join('\n\n', true);
      if (!content.trim()) continue;
      const marker = ordered ? `${n++}.` : '-';
      const indent = ' '.repeat(marker.length + 1);
      lines.push(`${marker} ${content.replace(/\n(?=.)/g, `\n${indent}`)}`);
    }
    return lines.join('\n');
  }

  private codeBlock(pre: Element): string {
    const code = preformattedText(pre)
      .replace(/\r\n?/g, '\n')
      // Browsers drop the newline right after <pre>; htmlparser2 keeps it.
      .replace(/^\n/, '')
      .replace(/\n+$/, '');
    if (!code.trim()) return '';
    return fencedCodeBlock(code, codeLanguage(pre));
  }

  private table(table: Element): string {
    const grid: string[][] = [];
    const carried: number[] = [];
    let caption = '';
    for (const section of table.children) {
      if (!isTag(section) || this.skip.has(section)) continue;
      if (section.name === 'caption') caption = this.inlineOf(section).trim();
      const rows = section.name === 'tr' ? [section] : section.children;
      for (const row of rows) {
        if (isTag(row) && row.name === 'tr' && !this.skip.has(row)) grid.push(this.tableRow(row, carried));
      }
    }
    const width = Math.max(0, ...grid.map((r) => r.length));
    if (width === 0 || grid.every((r) => r.every((cell) => cell === ''))) return caption;
    const line = (cells: string[]): string =>
      `| ${Array.from({ length: width }, (_, i) => cells[i] ?? '').join(' | ')} |`;
    const [header = [], ...body] = grid;
    const rendered = [line(header), `|${' --- |'.repeat(width)}`, ...body.map(line)].join('\n');
    return caption ? `${caption}\n\n${rendered}` : rendered;
  }

  /**
   * One row, with colspans padded by empty cells and rowspans leaving empty cells in the rows
   * below (`carried[column]` counts the rows still covered).
   */
  private tableRow(row: Element, carried: number[]): string[] {
    const cells: string[] = [];
    const skipCarried = (): void => {
      while ((carried[cells.length] ?? 0) > 0) {
        carried[cells.length] = (carried[cells.length] ?? 0) - 1;
        cells.push('');
      }
    };
    for (const cell of row.children) {
      if (!isTag(cell) || (cell.name !== 'td' && cell.name !== 'th') || this.skip.has(cell)) continue;
      skipCarried();
      const text = this.inlineOf(cell).trim().replace(/\|/g, '\\|');
      const colspan = clamp(cell.attribs.colspan, 100);
      const rowspan = clamp(cell.attribs.rowspan, 1000);
      for (let i = 0; i < colspan; i++) {
        carried[cells.length] = rowspan - 1;
        cells.push(i === 0 ? text : '');
      }
    }
    skipCarried();
    return cells;
  }
}

/** Layout tables (code listings with a line-number column, nested tables, single cells) read as blocks, not a grid. */
function isLayoutTable(table: Element): boolean {
  const { role } = table.attribs;
  if (role === 'presentation' || role === 'none') return true;
  let cells = 0;
  const stack: AnyNode[] = [...table.children];
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    if (!isTag(node)) continue;
    if (node.name === 'table' || node.name === 'pre') return true;
    if (node.name === 'td' || node.name === 'th') cells++;
    stack.push(...node.children);
  }
  return cells <= 1;
}

function clamp(value: string | undefined, max: number): number {
  const n = Number.parseInt(value ?? '', 10);
  return Number.isFinite(n) && n >= 1 ? Math.min(n, max) : 1;
}

function codeLanguage(pre: Element): string {
  const fromPre = LANGUAGE.exec(pre.attribs.class ?? '');
  if (fromPre) return fromPre[1] as string;
  const code = pre.children.find((c): c is Element => isTag(c) && c.name === 'code');
  const fromCode = code ? LANGUAGE.exec(code.attribs.class ?? '') : null;
  return fromCode?.[1] ?? pre.attribs['data-lang'] ?? pre.attribs['data-language'] ?? '';
}

/** Raw text of a `<pre>`: line-number gutters and copy buttons left out, line-per-div markup given its newlines. */
function preformattedText(pre: Element): string {
  let out = '';
  const stack: AnyNode[] = [...pre.children].reverse();
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    if (isText(node)) {
      out += node.data;
      continue;
    }
    if (!isTag(node) || node.name === 'button' || GUTTER.test(node.attribs.class ?? '')) continue;
    if (node.name === 'br') {
      out += '\n';
      continue;
    }
    if (PRE_LINE_BLOCKS.has(node.name) && out !== '' && !out.endsWith('\n')) out += '\n';
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as AnyNode);
  }
  return out;
}

function inlineCode(raw: string): string {
  const text = raw.replace(/\s*[\r\n]\s*/g, ' ');
  if (!text.trim()) return '';
  let longest = 0;
  for (const match of text.matchAll(/`+/g)) longest = Math.max(longest, match[0].length);
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** Balanced parentheses are valid in a destination (Wikipedia URLs have them); unbalanced ones are encoded. */
function linkDestination(url: string): string {
  let depth = 0;
  for (const c of url) {
    if (c === '(') depth++;
    else if (c === ')' && --depth < 0) break;
  }
  const safe = depth === 0 ? url : url.replace(/\(/g, '%28').replace(/\)/g, '%29');
  return safe.replace(/ /g, '%20');
}

/**
 * Escapes for text that is not at a line start (line starts are handled per paragraph). `_` inside
 * a word and `*` between spaces cannot start emphasis, so they stay bare.
 */
function escapeText(text: string): string {
  return text.replace(/[\\`*_[\]<&~]/g, (c, offset: number, whole: string) => {
    const before = whole[offset - 1];
    const after = whole[offset + 1];
    switch (c) {
      case '\\':
        return after !== undefined && /[!-/:-@[-`{-~]/.test(after) ? '\\\\' : c;
      case '_':
        return isWordChar(before) && isWordChar(after) ? c : '\\_';
      case '*':
        return before === ' ' && after === ' ' ? c : '\\*';
      case '[':
        return '\\[';
      case ']':
        return '\\]';
      case '<':
        return after !== undefined && /[A-Za-z/!?]/.test(after) ? '\\<' : c;
      case '&':
        return /^&#?[A-Za-z0-9]+;/.test(whole.slice(offset, offset + 34)) ? '\\&' : c;
      case '~':
        return before === '~' || after === '~' ? '\\~' : c;
      default:
        return `\\${c}`;
    }
  });
}

function isWordChar(c: string | undefined): boolean {
  return c !== undefined && /[\p{L}\p{N}]/u.test(c);
}

/** Trim the lines of a paragraph, keep at most one blank line, and escape block syntax at line starts. */
function finishParagraph(inline: string): string {
  if (!/\S/.test(inline)) return '';
  const lines: string[] = [];
  for (const raw of inline.split('\n')) {
    const line = raw.replace(/ {2,}/g, ' ').trim();
    if (line === '' && (lines.length === 0 || lines[lines.length - 1] === '')) continue;
    lines.push(line === '' ? '' : escapeLineStart(line));
  }
  while (lines[lines.length - 1] === '') lines.pop();
  return lines.join('\n');
}

function escapeLineStart(line: string): string {
  if (/^(?:[-+*]|#{1,6})(?:\s|$)|^>/.test(line)) return `\\${line}`;
  if (/^(?:[-=_*] *){3,}$/.test(line) || /^=+$/.test(line) || /^(?:```|~~~)/.test(line)) return `\\${line}`;
  return line.replace(/^(\d{1,9})([.)])(?=\s|$)/, '$1\\$2');
}
