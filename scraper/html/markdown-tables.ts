/**
 * Tables for the Markdown output, as a turndown rule in place of turndown-plugin-gfm's table
 * rules: those keep a table without a `<th>` header row as raw HTML, leave colspans unpadded and pipes
 * unescaped (GFM then drops or shifts cells), break the table when a cell holds paragraphs, and
 * draw layout tables as grids. Here:
 *  - a data table becomes a GFM table with outer pipes, its first row the header;
 *  - colspans and rowspans are padded with empty cells, so every row has the table's width;
 *  - a cell is one line, with `|` escaped;
 *  - a layout table (presentation role, a nested table or code, a single cell, no content) reads
 *    as blocks.
 */
import type TurndownService from 'turndown';
import { collapseWhitespace } from './dom.js';
import { addRule, ELEMENT_NODE, TEXT_NODE, type DomElement, type DomNode } from './turndown-dom.js';

interface Grid {
  width: number;
  /** The first row with cells. */
  header: DomElement | undefined;
  /** Separator cells of the header row, by column. */
  align: string[];
  /** Empty cells before a cell: the columns a rowspan from above still covers. */
  gapBefore: Map<DomElement, number>;
  /** The column a row's own cells end at; the rest of the width is padding. */
  rowEnd: Map<DomElement, number>;
  caption: string;
}

const ALIGN: Record<string, string> = { left: ':--', right: '--:', center: ':-:' };
const TABLE_PARTS = new Set(['TABLE', 'CAPTION', 'THEAD', 'TBODY', 'TFOOT', 'TR', 'TD', 'TH']);
const EMPTY_CELL = '  |';

/** Per conversion: turndown builds a new DOM each time, so entries go with it. `null`: a layout table. */
const grids = new WeakMap<DomElement, Grid | null>();

/**
 * One rule for every table part, so the other elements pay a single filter check: turndown tries
 * each rule's filter on each element until one matches.
 */
export function tables(service: TurndownService): void {
  addRule(service, 'tables', {
    filter: (node) => TABLE_PARTS.has(node.nodeName),
    replacement: (content, node) => {
      const grid = gridOf(node);
      if (!grid) return `\n\n${content}\n\n`;
      switch (node.nodeName) {
        case 'TABLE':
          // Rows end in one newline each; an empty `<tr>` renders as a blank line, which would end the table.
          return `\n\n${grid.caption ? `${grid.caption}\n\n` : ''}${content.replace(/\n+/g, '\n').trim()}\n\n`;
        case 'CAPTION':
          // The table puts it above the rows, as a paragraph of its own.
          grid.caption = collapseWhitespace(content);
          return '';
        case 'TR':
          return tableRow(content, node, grid);
        case 'TD':
        case 'TH': {
          const gap = EMPTY_CELL.repeat(grid.gapBefore.get(node) ?? 0);
          const text = collapseWhitespace(content).replace(/\|/g, '\\|');
          return `${gap} ${text} |${EMPTY_CELL.repeat(span(node, 'colspan', 100) - 1)}`;
        }
        default:
          return content;
      }
    },
  });
}

function tableRow(content: string, tr: DomElement, grid: Grid): string {
  const line = `\n|${content}${EMPTY_CELL.repeat(grid.width - (grid.rowEnd.get(tr) ?? 0))}`;
  if (tr !== grid.header) return line;
  return `${line}\n|${Array.from({ length: grid.width }, (_, i) => ` ${grid.align[i] ?? '---'} |`).join('')}`;
}

/** Whether `node` sits in a cell of a data table, where content is one line of inline Markdown. */
export function isInDataTableCell(node: DomElement): boolean {
  for (let el = node.parentElement; el; el = el.parentElement) {
    if (el.nodeName === 'TD' || el.nodeName === 'TH') return gridOf(el) !== undefined;
  }
  return false;
}

/** The grid of the table `node` is or belongs to; undefined for a layout table. */
function gridOf(node: DomElement): Grid | undefined {
  const table = tableOf(node);
  if (!table) return undefined;
  let grid = grids.get(table);
  if (grid === undefined) {
    grid = isLayoutTable(table) ? null : layOut(table);
    grids.set(table, grid);
  }
  return grid ?? undefined;
}

/** A cell is three levels below its table at most: cell, row, section. */
function tableOf(node: DomElement): DomElement | undefined {
  let el: DomElement | null = node;
  for (let i = 0; el && i < 4; i++, el = el.parentElement) if (el.nodeName === 'TABLE') return el;
  return undefined;
}

function isLayoutTable(table: DomElement): boolean {
  const role = table.getAttribute('role');
  if (role === 'presentation' || role === 'none') return true;
  let cells = 0;
  let content = false;
  const stack: DomNode[] = [...table.childNodes];
  while (stack.length > 0) {
    const node = stack.pop() as DomNode;
    if (node.nodeType === TEXT_NODE) {
      content ||= /\S/.test(node.data);
      continue;
    }
    const name = node.nodeName;
    if (name === 'TABLE' || name === 'PRE') return true;
    if (name === 'TD' || name === 'TH') cells++;
    content ||= name === 'IMG';
    stack.push(...node.childNodes);
  }
  return cells <= 1 || !content;
}

function layOut(table: DomElement): Grid {
  const grid: Grid = { width: 0, header: undefined, align: [], gapBefore: new Map(), rowEnd: new Map(), caption: '' };
  /** Per column, how many more rows a rowspan from above covers. */
  const carried: number[] = [];
  for (const row of rowsOf(table)) {
    let column = 0;
    const cells = childElements(row, 'TD', 'TH');
    if (cells.length > 0) grid.header ??= row;
    for (const cell of cells) {
      const start = column;
      column = uncovered(carried, column);
      grid.gapBefore.set(cell, column - start);
      const rowspan = span(cell, 'rowspan', 1000);
      const align = ALIGN[cell.getAttribute('align')?.toLowerCase() ?? ''];
      for (let i = span(cell, 'colspan', 100); i > 0; i--) {
        if (row === grid.header && align) grid.align[column] = align;
        carried[column++] = rowspan - 1;
      }
    }
    grid.rowEnd.set(row, column);
    grid.width = Math.max(grid.width, uncovered(carried, column));
  }
  return grid;
}

/** The first column from `column` on that no rowspan covers, counting down the covers it passes. */
function uncovered(carried: number[], column: number): number {
  let i = column;
  while ((carried[i] ?? 0) > 0) carried[i++]! -= 1;
  return i;
}

function rowsOf(table: DomElement): DomElement[] {
  const rows: DomElement[] = [];
  for (const child of childElements(table, 'TR', 'THEAD', 'TBODY', 'TFOOT')) {
    if (child.nodeName === 'TR') rows.push(child);
    else rows.push(...childElements(child, 'TR'));
  }
  return rows;
}

/** By `childNodes`, as the rules read the DOM: the markdown tests also run them on domino's, whose `children` is no array. */
function childElements(parent: DomElement, ...names: string[]): DomElement[] {
  const found: DomElement[] = [];
  for (const child of parent.childNodes) if (child.nodeType === ELEMENT_NODE && names.includes(child.nodeName)) found.push(child);
  return found;
}

function span(cell: DomElement, attribute: string, max: number): number {
  const n = Number.parseInt(cell.getAttribute(attribute) ?? '', 10);
  return Number.isFinite(n) && n >= 1 ? Math.min(n, max) : 1;
}
