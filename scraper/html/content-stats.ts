/**
 * The numbers the main-content scorer decides from, gathered per element in one bottom-up pass,
 * and the per-node tests that feed them (text, commas, data tables).
 */
import { isTag, isVisibleChar, type AnyNode, type Element, type ParentNode } from './dom.js';

/** Inline content: a run of it inside a div is a paragraph, as Readability wraps such runs in a `<p>`. */
export const PHRASING_TAGS = new Set([
  'a', 'abbr', 'audio', 'b', 'bdi', 'bdo', 'big', 'br', 'button', 'cite', 'code', 'data', 'datalist', 'del',
  'dfn', 'em', 'embed', 'font', 'i', 'img', 'input', 'ins', 'kbd', 'label', 'mark', 'math', 'meter', 'noscript',
  'object', 'output', 'picture', 'progress', 'q', 'ruby', 's', 'samp', 'script', 'select', 'small', 'span',
  'strike', 'strong', 'sub', 'sup', 'textarea', 'time', 'tt', 'u', 'var', 'wbr',
]);

/** Per-element numbers gathered bottom-up, over the parts of the subtree that were not dropped. */
export class Stats {
  text = 0;
  /** As `visibleTextLength` counts: what the selection needs, gathered in the same scan. */
  visible = 0;
  links = 0;
  commas = 0;
  p = 0;
  img = 0;
  li = 0;
  input = 0;
  embed = 0;
  headingText = 0;
  listText = 0;
  hasPre = false;
  hasDataTable = false;

  add(o: Stats): void {
    this.text += o.text;
    this.visible += o.visible;
    this.links += o.links;
    this.commas += o.commas;
    this.p += o.p;
    this.img += o.img;
    this.li += o.li;
    this.input += o.input;
    this.embed += o.embed;
    this.headingText += o.headingText;
    this.listText += o.listText;
    this.hasPre ||= o.hasPre;
    this.hasDataTable ||= o.hasDataTable;
  }

  get linkDensity(): number {
    return this.text === 0 ? 0 : this.links / this.text;
  }
}

export interface Frame {
  el: ParentNode;
  next: number;
  stats: Stats;
  /** Phrasing content since the last block child: Readability wraps such runs in a `<p>`. */
  runText: number;
  runCommas: number;
  hasBlockChild: boolean;
  elementChildren: number;
  onlyElement: Element | undefined;
  hasDirectText: boolean;
}

export function newFrame(el: ParentNode): Frame {
  return {
    el,
    next: 0,
    stats: new Stats(),
    runText: 0,
    runCommas: 0,
    hasBlockChild: false,
    elementChildren: 0,
    onlyElement: undefined,
    hasDirectText: false,
  };
}

/** Readability's `_markDataTables` test. */
export function computeIsDataTable(table: Element): boolean {
  const { attribs } = table;
  if (attribs.role === 'presentation' || attribs.role === 'none' || attribs.datatable === '0') return false;
  if (attribs.summary) return true;
  let rows = 0;
  let columns = 0;
  let structural = false;
  let nested = false;
  const stack: AnyNode[] = [...table.children];
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    if (!isTag(node)) continue;
    switch (node.name) {
      case 'table':
        nested = true;
        continue;
      case 'caption':
        structural ||= node.children.length > 0;
        break;
      case 'col':
      case 'colgroup':
      case 'tfoot':
      case 'thead':
      case 'th':
        structural = true;
        break;
      case 'tr': {
        rows++;
        let cells = 0;
        for (const cell of node.children) {
          if (isTag(cell) && (cell.name === 'td' || cell.name === 'th')) cells += Number(cell.attribs.colspan) || 1;
        }
        columns = Math.max(columns, cells);
        break;
      }
    }
    stack.push(...node.children);
  }
  if (structural) return true;
  if (nested) return false;
  return rows >= 10 || columns > 4 || rows * columns > 10;
}

/** Without either, the class and id patterns have nothing to match: most elements skip them. */
export function containsTag(el: Element, name: string): boolean {
  const stack: AnyNode[] = [...el.children];
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    if (!isTag(node)) continue;
    if (node.name === name) return true;
    stack.push(...node.children);
  }
  return false;
}

/** The commas other than U+002C. */
function isComma(c: number): boolean {
  return c === 0x60c || c === 0xfe50 || c === 0xfe10 || c === 0xfe11 || c === 0x2e41 || c === 0x2e34 || c === 0x2e32 || c === 0xff0c;
}

/**
 * Counts a text child into its parent's frame: its length with whitespace runs counted once, its
 * visible characters and its commas (Latin, Arabic, CJK...), in one scan and without allocating
 * (this runs per text node).
 */
export function addText(frame: Frame, text: string): void {
  let length = 0;
  let commas = 0;
  let visible = 0;
  let inSpace = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // Tested in the order that takes the fewest comparisons for the usual character, a visible one.
    if (isVisibleChar(c)) {
      visible++;
      inSpace = false;
      length++;
      if (c === 0x2c || (c >= 0x60c && isComma(c))) commas++;
    } else if (c === 32 || c === 10 || c === 9 || c === 13 || c === 12 || c === 160) {
      if (!inSpace) length++;
      inSpace = true;
    } else {
      // Other control characters: not visible, but not a space either.
      inSpace = false;
      length++;
    }
  }
  frame.stats.visible += visible;
  if (length === 0) return;
  frame.stats.text += length;
  frame.stats.commas += commas;
  frame.runText += length;
  frame.runCommas += commas;
  frame.hasDirectText ||= /\S/.test(text);
}
