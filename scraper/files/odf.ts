/**
 * OpenDocument (ODT, ODS, ODP) to HTML, in the shapes of their OOXML siblings: a text document
 * like DOCX (headings, paragraphs, lists, tables, links), a spreadsheet like XLSX (one table per
 * sheet under its name), a presentation like PPTX (one section per slide, with its notes). The one
 * maintained library that reads all three (officeparser) would bring its own zip and XML stack past
 * office-zip.ts's limits; ODF's content.xml is plain enough to read with sax (xml.ts) here.
 */
import type sax from 'sax';
import type { Unzipped } from 'fflate';
import { MAX_TABLE_CELLS } from './delimited.js';
import { escapeHtml, htmlTable } from './html-table.js';
import { parseFailed, readOfficeZip } from './office-zip.js';
import { slideHtml } from './pptx.js';
import { attr, parseXml, zipText } from './xml.js';

/** Text-bearing elements: their content is what a reader sees of a paragraph. */
const SPACE = 'text:s';
const TAB = 'text:tab';
const BREAK = 'text:line-break';
/**
 * Subtrees left out: comments, deleted text, shapes' titles, and footnotes, whose paragraphs sit
 * inside the paragraph that cites them and would split it.
 */
const HIDDEN = new Set(['office:annotation', 'text:tracked-changes', 'text:note', 'svg:title', 'svg:desc', 'office:forms', 'text:sequence-decls']);

/** Text of paragraph content: `text:s` repeats a space `text:c` times, capped (a hostile count). */
function inlineText(node: sax.Tag): string | undefined {
  if (node.name === SPACE) return ' '.repeat(Math.min(1000, Math.max(1, Number(attr(node, 'text:c')) || 1)));
  if (node.name === TAB) return '\t';
  if (node.name === BREAK) return '\n';
  return undefined;
}

/** Counts nesting of HIDDEN subtrees, so text inside them is skipped. */
function hiddenTracker() {
  let depth = 0;
  return {
    /** True when the element is inside (or is) a hidden subtree. */
    open(name: string): boolean {
      if (depth === 0 && !HIDDEN.has(name)) return false;
      depth++;
      return true;
    },
    /** True when the element closed was inside (or was) a hidden subtree. */
    close(): boolean {
      if (depth === 0) return false;
      depth--;
      return true;
    },
    get hidden() {
      return depth > 0;
    },
  };
}

/**
 * The package's parts, refused when password-protected: its manifest then gives each part
 * `encryption-data`, and content.xml is ciphertext that would only fail as malformed XML.
 */
function readOdf(body: Buffer, what: string): Unzipped {
  const files = readOfficeZip(body);
  const manifest = files['META-INF/manifest.xml'];
  if (manifest && Buffer.from(manifest).includes('encryption-data')) throw parseFailed(`${what} is password-protected (encrypted); Trawl cannot read it`);
  return files;
}

// ---- ODT ---------------------------------------------------------------------------------------

export function odtToHtml(body: Buffer): string {
  const what = 'The text document';
  const files = readOdf(body, what);
  const ordered = numberedListStyles(files, what);
  const out: string[] = [];
  const hidden = hiddenTracker();
  /** Open lists' tags, to close them in order; a nested list without a style takes its parent's kind. */
  const lists: string[] = [];
  /** Paragraphs seen in each open list item: an item's paragraphs are lines of it, not blocks, as DOCX's are. */
  const items: number[] = [];
  let heading = 1;
  let inBody = false;
  parseXml(
    zipText(files, 'content.xml', what),
    {
      open: (node) => {
        if (node.name === 'office:text') inBody = true;
        if (!inBody || hidden.open(node.name)) return;
        const inline = inlineText(node);
        if (inline !== undefined) return void out.push(inline === '\n' ? '<br>' : inline);
        switch (node.name) {
          case 'text:h': {
            heading = Math.min(6, Math.max(1, Number(attr(node, 'text:outline-level')) || 1));
            return void out.push(`<h${heading}>`);
          }
          case 'text:p': {
            // In a table (marked -1), even inside a list item, paragraphs are blocks again.
            const top = items.length - 1;
            if (top < 0 || items[top]! < 0) return void out.push('<p>');
            if (items[top]!++ > 0) out.push('<br>');
            return;
          }
          case 'text:list': {
            const style = attr(node, 'text:style-name');
            const tag = style ? (ordered.has(style) ? 'ol' : 'ul') : (lists.at(-1) ?? 'ul');
            lists.push(tag);
            return void out.push(`<${tag}>`);
          }
          case 'text:list-item':
          case 'text:list-header':
            items.push(0);
            return void out.push('<li>');
          case 'table:table':
            items.push(-1);
            return void out.push('<table>');
          case 'table:table-row':
            return void out.push('<tr>');
          case 'table:table-cell':
          case 'table:covered-table-cell':
            return void out.push('<td>');
          case 'text:a': {
            const href = attr(node, 'xlink:href');
            return void out.push(href ? `<a href="${escapeHtml(href)}">` : '<a>');
          }
        }
      },
      text: (text) => {
        if (inBody && !hidden.hidden) out.push(escapeHtml(text));
      },
      close: (name) => {
        if (name === 'office:text') inBody = false;
        if (!inBody || hidden.close()) return;
        switch (name) {
          case 'text:h':
            return void out.push(`</h${heading}>`);
          case 'text:p':
            if (!items.length || items.at(-1)! < 0) out.push('</p>');
            return;
          case 'text:list':
            return void out.push(`</${lists.pop() ?? 'ul'}>`);
          case 'text:list-item':
          case 'text:list-header':
            items.pop();
            return void out.push('</li>');
          case 'table:table':
            items.pop();
            return void out.push('</table>');
          case 'table:table-row':
            return void out.push('</tr>');
          case 'table:table-cell':
          case 'table:covered-table-cell':
            return void out.push('</td>');
          case 'text:a':
            return void out.push('</a>');
        }
      },
    },
    what,
  );
  return `<html><body>${out.join('')}</body></html>`;
}

/** List styles whose first level is numbered, from content.xml's automatic styles and styles.xml. */
function numberedListStyles(files: Unzipped, what: string): Set<string> {
  const numbered = new Set<string>();
  for (const part of ['styles.xml', 'content.xml']) {
    if (!(part in files)) continue;
    let style: string | undefined;
    let seenLevel = false;
    parseXml(
      zipText(files, part, what),
      {
        open: (node) => {
          if (node.name === 'text:list-style') {
            style = attr(node, 'style:name');
            seenLevel = false;
          } else if (style && !seenLevel && node.name.startsWith('text:list-level-style-')) {
            seenLevel = true;
            if (node.name === 'text:list-level-style-number') numbered.add(style);
          }
        },
        close: (name) => {
          if (name === 'text:list-style') style = undefined;
        },
      },
      what,
    );
  }
  return numbered;
}

// ---- ODS ---------------------------------------------------------------------------------------

interface Cell {
  text: string;
  repeat: number;
}

/**
 * Each sheet a table. ODF writes runs of equal cells and rows once with a repeat count (a sheet's
 * unused tail is one row repeated a million times): trailing empty cells and rows are dropped
 * before anything is expanded, and expansion stops at the table-cell budget.
 */
export function odsToHtml(body: Buffer): { html: string; truncated: boolean } {
  const what = 'The spreadsheet';
  const files = readOdf(body, what);
  const sections: string[] = [];
  const hidden = hiddenTracker();
  let budget = MAX_TABLE_CELLS;
  let truncated = false;
  let sheet: { name: string; rows: string[][]; pendingEmptyRows: number } | undefined;
  let row: { cells: Cell[]; repeat: number } | undefined;
  let cell: Cell | undefined;
  let paragraphs = 0;
  /** Tables inside a cell (rare) belong to the cell's text, not the sheet's grid. */
  let nested = 0;

  const endRow = () => {
    if (!sheet || !row) return;
    const cells = row.cells;
    while (cells.length && !cells.at(-1)!.text) cells.pop();
    if (!cells.length) {
      sheet.pendingEmptyRows += row.repeat;
      return;
    }
    const expanded: string[] = [];
    for (const c of cells) for (let i = 0; i < c.repeat && expanded.length <= budget; i++) expanded.push(c.text);
    // Empty rows between rows with content are kept; each row costs at least one cell of the budget.
    const empty = sheet.pendingEmptyRows;
    sheet.pendingEmptyRows = 0;
    for (let i = 0; i < empty + row.repeat; i++) {
      const copy = i < empty ? [] : expanded;
      if (budget < Math.max(1, copy.length)) return void (truncated = true);
      budget -= Math.max(1, copy.length);
      sheet.rows.push(copy);
    }
  };

  parseXml(
    zipText(files, 'content.xml', what),
    {
      open: (node) => {
        if (hidden.open(node.name)) return;
        if (node.name === 'table:table') {
          if (sheet) return void nested++;
          sheet = { name: attr(node, 'table:name'), rows: [], pendingEmptyRows: 0 };
        } else if (nested) return;
        else if (node.name === 'table:table-row' && sheet) row = { cells: [], repeat: repeatOf(node, 'table:number-rows-repeated') };
        else if ((node.name === 'table:table-cell' || node.name === 'table:covered-table-cell') && row) {
          cell = { text: '', repeat: repeatOf(node, 'table:number-columns-repeated') };
          paragraphs = 0;
        } else if (node.name === 'text:p' && cell) {
          if (paragraphs++) cell.text += '\n';
        } else if (cell) cell.text += inlineText(node) ?? '';
      },
      text: (text) => {
        if (cell && !hidden.hidden) cell.text += text;
      },
      close: (name) => {
        if (hidden.close()) return;
        if (name === 'table:table' && nested) return void nested--;
        if (nested) return;
        if ((name === 'table:table-cell' || name === 'table:covered-table-cell') && row && cell) {
          row.cells.push({ text: cell.text.trim(), repeat: cell.repeat });
          cell = undefined;
        } else if (name === 'table:table-row') {
          endRow();
          row = undefined;
        } else if (name === 'table:table' && sheet) {
          sections.push(`<h2>${escapeHtml(sheet.name)}</h2>${htmlTable(sheet.rows)}`);
          sheet = undefined;
        }
      },
    },
    what,
  );
  if (!sections.length) throw parseFailed('The spreadsheet has no sheets');
  return { html: `<html><body>${sections.join('')}</body></html>`, truncated };
}

function repeatOf(node: sax.Tag, name: string): number {
  const n = Number(attr(node, name));
  return Number.isInteger(n) && n > 1 ? n : 1;
}

// ---- ODP ---------------------------------------------------------------------------------------

/** One section per `draw:page` in document order, its paragraphs, and its `presentation:notes`. */
export function odpToHtml(body: Buffer): string {
  const what = 'The presentation';
  const files = readOdf(body, what);
  const slides: { text: string[]; notes: string[] }[] = [];
  const hidden = hiddenTracker();
  let slide: { text: string[]; notes: string[] } | undefined;
  let inNotes = false;
  let paragraph: string | undefined;
  parseXml(
    zipText(files, 'content.xml', what),
    {
      open: (node) => {
        if (hidden.open(node.name)) return;
        if (node.name === 'draw:page') slide = { text: [], notes: [] };
        else if (node.name === 'presentation:notes') inNotes = true;
        else if ((node.name === 'text:p' || node.name === 'text:h') && slide) paragraph = '';
        else if (paragraph !== undefined) paragraph += inlineText(node) ?? '';
      },
      text: (text) => {
        if (paragraph !== undefined && !hidden.hidden) paragraph += text;
      },
      close: (name) => {
        if (hidden.close()) return;
        if ((name === 'text:p' || name === 'text:h') && slide && paragraph !== undefined) {
          if (paragraph.trim()) (inNotes ? slide.notes : slide.text).push(paragraph.trim());
          paragraph = undefined;
        } else if (name === 'presentation:notes') inNotes = false;
        else if (name === 'draw:page' && slide) {
          slides.push(slide);
          slide = undefined;
        }
      },
    },
    what,
  );
  if (!slides.length) throw parseFailed('The presentation has no slides');
  return `<html><body>${slides.map((s, i) => slideHtml(i + 1, s.text, s.notes)).join('')}</body></html>`;
}
