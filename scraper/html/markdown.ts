/**
 * The `markdown` format: the selected content converted by turndown. Turndown is handed the
 * selection as a small purpose-built DOM (turndown-tree.ts) rather than as serialised HTML it would
 * parse again: only the selection reaches turndown, so navigation and other chrome cost nothing
 * there, and no markup is written or parsed twice.
 *
 * Output: ATX headings, "-" bullets, `*` emphasis, fenced code, inline links, GFM tables, task
 * lists and strikethrough. The rules added to turndown are the ones its output needed: code blocks
 * and tables (their own files), no empty or `javascript:` links, block content flattened inside
 * links (card links), `~~` strikethrough, base64 images replaced on request, and form controls
 * and media left out.
 */
import TurndownService from 'turndown';
import { highlightedCodeBlock, taskListItems } from 'turndown-plugin-gfm';
import { collapseWhitespace, type AnyNode } from './dom.js';
import { codeBlocks } from './markdown-code.js';
import { isInDataTableCell, tables } from './markdown-tables.js';
import { addRule, convert, removeRule } from './turndown-dom.js';
import { selectionSource } from './turndown-tree.js';
import type { UrlResolver } from './urls.js';

export interface MarkdownOptions {
  resolve: UrlResolver;
  /** Replace data: image URLs with a placeholder (Firecrawl's `removeBase64Images`). */
  removeBase64Images: boolean;
}

const BASE64_IMAGE_PLACEHOLDER = '<Base64-Image-Removed>';

/**
 * Elements with nothing to read; their text (option labels, fallback content) would only be noise.
 * SVG and MathML elements keep lower-case names in an HTML DOM.
 */
const LEFT_OUT = new Set([
  'svg', 'math', 'CANVAS', 'IFRAME', 'OBJECT', 'EMBED', 'VIDEO', 'AUDIO', 'SOURCE', 'TRACK', 'MAP', 'AREA',
  'SELECT', 'OPTION', 'DATALIST', 'INPUT', 'TEXTAREA', 'BUTTON',
]);
const STRIKETHROUGH = new Set(['DEL', 'S', 'STRIKE']);
const SKIP_LINK_TEXT = /^skip to (?:the )?(?:main )?content$/i;
/** Turndown recurses per element; below this depth the content reaches it as plain text. */
export const MAX_DEPTH = 200;

/** Built once per process, one per `removeBase64Images` value: a service holds only its rules. */
const keepingBase64Images = createService(false);
const removingBase64Images = createService(true);

export function toMarkdown(roots: readonly AnyNode[], skip: ReadonlySet<AnyNode>, options: MarkdownOptions): string {
  const source = selectionSource(roots, skip, { resolve: options.resolve, maxDepth: MAX_DEPTH });
  return collapseBlankLines(convert(markdownService(options.removeBase64Images), source));
}

/** The configured turndown for one `removeBase64Images` value; it converts turndown-dom.ts trees. */
export function markdownService(removeBase64Images: boolean): TurndownService {
  return removeBase64Images ? removingBase64Images : keepingBase64Images;
}

function createService(removeBase64Images: boolean): TurndownService {
  const service = new TurndownService({
    headingStyle: 'atx',
    bulletListMarker: '-',
    codeBlockStyle: 'fenced',
    emDelimiter: '*',
  });
  // Of the GFM plugin, tables and strikethrough are replaced below and in markdown-tables.ts.
  service.use([highlightedCodeBlock, taskListItems, tables, codeBlocks]);
  removeRule(service, (node) => LEFT_OUT.has(node.nodeName));
  addRule(service, 'strikethrough', {
    // GFM's single `~` is not strikethrough in most other Markdown renderers.
    filter: (node) => STRIKETHROUGH.has(node.nodeName),
    replacement: (content) => (content.trim() ? `~~${content}~~` : content),
  });
  addRule(service, 'heading', {
    filter: ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'],
    replacement: (content, node) => {
      const text = collapseWhitespace(content);
      if (!text) return '';
      // Inside a link (card links) or a table cell only inline Markdown can live.
      if (node.closest('a') || isInDataTableCell(node)) return `\n\n${text}\n\n`;
      return `\n\n${'#'.repeat(Number(node.nodeName.charAt(1)))} ${text}\n\n`;
    },
  });
  addRule(service, 'link', {
    filter: (node) => node.nodeName === 'A' && Boolean(node.getAttribute('href')),
    replacement: (content, node) => {
      const text = collapseWhitespace(content);
      const href = (node.getAttribute('href') as string).trim();
      if (!text || (href.includes('#') && SKIP_LINK_TEXT.test(text))) return '';
      return /^javascript:/i.test(href) ? text : `[${text}](${linkDestination(href)})`;
    },
  });
  if (removeBase64Images) {
    addRule(service, 'base64Image', {
      filter: (node) => node.nodeName === 'IMG' && /^data:/i.test(node.getAttribute('src') ?? ''),
      replacement: (_content, node) =>
        `![${service.escape(collapseWhitespace(node.getAttribute('alt') ?? ''))}](${BASE64_IMAGE_PLACEHOLDER})`,
    });
  }
  return service;
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
 * Line breaks in a row (`<br><br>`) and empty blocks leave lines of spaces: at most one blank line
 * is kept between blocks. Lines inside code fences are kept as they are.
 */
function collapseBlankLines(markdown: string): string {
  const lines: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    if (fence !== undefined) {
      lines.push(line);
      const closing = line.includes('`') ? /^\s*(`{3,})\s*$/.exec(line)?.[1] : undefined;
      if (closing && closing.length >= fence.length) fence = undefined;
      continue;
    }
    // Most lines start with a printable ASCII character other than a backtick: text, not a fence.
    const first = line.charCodeAt(0);
    if (first > 32 && first < 127 && first !== 96) {
      lines.push(line);
      continue;
    }
    fence = /^\s*(`{3,})/.exec(line)?.[1];
    if (/\S/.test(line)) lines.push(line);
    else if (lines.length > 0 && lines[lines.length - 1] !== '') lines.push('');
  }
  while (lines[lines.length - 1] === '') lines.pop();
  return lines.join('\n');
}
