/**
 * The selection as turndown's DOM (turndown-dom.ts), built straight from the domhandler nodes.
 *
 * It is the tree an HTML parser builds from the selection's `html` output (html-output.ts), which
 * is what turndown used to be given: left-out nodes and comments gone, link and image URLs
 * absolute, and what a parser does to that markup done here too, where it changes the Markdown:
 * text split by left-out nodes is one text node, line breaks are normalised, the newline right
 * after `<pre>` is dropped, `<html>`/`<body>` tags vanish, stray table parts are ignored or given
 * the row they imply, and text or elements loose in a table go in front of it.
 *
 * Not reproduced: how a parser rebuilds misnested markup that htmlparser2 kept as written (a block
 * inside an inline inside `<p>`, a link inside a link, a heading inside a heading, HTML inside
 * `<svg>`). Such a tree is converted as htmlparser2 parsed it, the tree the selection and the
 * `html` output see.
 */
import { isTag, isText, type AnyNode, type Element } from './dom.js';
import { outputAttributes } from './html-output.js';
import { DomElement, DomText, ELEMENT_NODE, TEXT_NODE, type DomNode, type Namespace, type TurndownSource } from './turndown-dom.js';
import type { UrlResolver } from './urls.js';

export interface TreeOptions {
  resolve: UrlResolver;
  /**
   * Elements nested deeper are kept as their text only. Broken pages can nest thousands of
   * unclosed tags, and turndown recurses per element: it would overflow the stack on them.
   */
  maxDepth: number;
}

/** `cloneNode(true)` builds the tree: each conversion gets a fresh one, and nothing is copied. */
export function selectionSource(roots: readonly AnyNode[], skip: ReadonlySet<AnyNode>, options: TreeOptions): TurndownSource {
  return { nodeType: ELEMENT_NODE, cloneNode: () => buildTree(roots, skip, options) };
}

const NO_ATTRIBUTES: Readonly<Record<string, string>> = Object.freeze({});

/** Tags a parser ignores inside `<body>`, keeping what they hold. */
const IGNORED_TAGS = new Set(['html', 'head', 'body', 'frameset', 'frame']);
/** Void to a parser but not to htmlparser2: their children follow them instead. */
const VOID_WITH_CHILDREN = new Set(['image', 'bgsound']);
/** The parser drops a newline right after these start tags. */
const LEADING_NEWLINE_DROPPED = new Set(['PRE', 'LISTING', 'TEXTAREA']);
/** Text here is raw to a parser: a NUL becomes U+FFFD instead of being dropped. */
const RAW_TEXT = new Set(['TEXTAREA', 'TITLE', 'XMP', 'IFRAME', 'NOEMBED', 'NOFRAMES', 'PLAINTEXT']);
const TABLE_PARTS = new Set(['caption', 'col', 'colgroup', 'tbody', 'thead', 'tfoot', 'tr', 'td', 'th']);
const CELLS = new Set(['td', 'th']);
const ROW_GROUPS = new Set(['TABLE', 'TBODY', 'THEAD', 'TFOOT']);
/** Where only table parts may be: anything else a parser moves out, in front of the table. */
const TABLE_STRUCTURE = new Set(['TABLE', 'TBODY', 'THEAD', 'TFOOT', 'TR']);
const ASCII_WHITESPACE = /^[ \t\n\f\r]*$/;
const SVG_HTML_CONTENT = new Set(['foreignobject', 'desc', 'title']);
const MATH_HTML_CONTENT = new Set(['mi', 'mo', 'mn', 'ms', 'mtext']);

function buildTree(roots: readonly AnyNode[], skip: ReadonlySet<AnyNode>, { resolve, maxDepth }: TreeOptions): DomElement {
  const builder = new TreeBuilder(resolve);
  // Three parallel stacks instead of a frame object per node: this runs for every node of every page.
  const nodes: AnyNode[] = [];
  const parents: DomElement[] = [];
  const depths: number[] = [];
  for (let i = roots.length - 1; i >= 0; i--) {
    nodes.push(roots[i] as AnyNode);
    parents.push(builder.root);
    depths.push(0);
  }
  while (nodes.length > 0) {
    const node = nodes.pop() as AnyNode;
    const parent = parents.pop() as DomElement;
    const depth = depths.pop() as number;
    if (isText(node)) {
      builder.text(parent, node.data);
      continue;
    }
    if (!isTag(node) || skip.has(node)) continue;
    const container = depth < maxDepth ? builder.element(parent, node) : parent;
    const { children } = node;
    for (let i = children.length - 1; i >= 0; i--) {
      nodes.push(children[i] as AnyNode);
      parents.push(container);
      depths.push(depth + 1);
    }
  }
  return builder.root;
}

class TreeBuilder {
  readonly root = new DomElement('x-turndown', 'html', NO_ATTRIBUTES);
  /** The element whose start tag was the last thing written, with no text after it yet. */
  private opened: DomElement | null = null;
  /** The last text written ends in a CR and no tag followed: a LF next is the same line break. */
  private afterCR = false;
  /** Rows no tag opened: the parser's, for cells written straight in a table or row group. */
  private readonly impliedRows = new Set<DomElement>();

  constructor(private readonly resolve: UrlResolver) {}

  /** Adds `node` under `parent`; returns where its children go. */
  element(parent: DomElement, node: Element): DomElement {
    this.afterCR = false;
    this.opened = null;
    const { name } = node;
    const namespace = namespaceOf(parent, name);
    let foster = false;
    if (namespace === 'html') {
      if (IGNORED_TAGS.has(name)) return parent;
      if (TABLE_PARTS.has(name)) {
        if (!tableOf(parent)) return parent;
        if (CELLS.has(name) && ROW_GROUPS.has(parent.nodeName)) parent = this.impliedRow(parent);
      } else if (TABLE_STRUCTURE.has(parent.nodeName)) {
        // A form in a table stays there, empty; what it held is read as the table's own content.
        if (name === 'form') {
          parent.appendChild(this.create(node, 'form', namespace));
          return parent;
        }
        // A parser would close the table before a nested one rather than move it: it stays where it is.
        foster = name !== 'table' && !(name === 'input' && node.attribs.type?.toLowerCase() === 'hidden');
      }
    }
    const el = this.create(node, namespace === 'html' && name === 'image' ? 'img' : name, namespace);
    if (foster) insertBeforeTable(parent, el);
    else parent.appendChild(el);
    this.opened = el;
    return namespace === 'html' && VOID_WITH_CHILDREN.has(name) ? (el.parentNode as DomElement) : el;
  }

  text(parent: DomElement, raw: string): void {
    let data = raw;
    if (this.afterCR && data.startsWith('\n')) data = data.slice(1);
    this.afterCR = data.endsWith('\r');
    if (data.includes('\r')) data = data.replace(/\r\n?/g, '\n');
    if (this.opened === parent && LEADING_NEWLINE_DROPPED.has(parent.nodeName) && data.startsWith('\n')) {
      data = data.slice(1);
    }
    this.opened = null;
    if (data.includes('\0')) data = data.replace(/\0/g, htmlText(parent) ? '' : '\uFFFD');
    if (data === '') return;
    if (TABLE_STRUCTURE.has(parent.nodeName) && !ASCII_WHITESPACE.test(data)) {
      insertBeforeTable(parent, new DomText(data));
      return;
    }
    const last = parent.lastChild;
    if (last && last.nodeType === TEXT_NODE) last.data += data;
    else parent.appendChild(new DomText(data));
  }

  private create(node: Element, localName: string, namespace: Namespace): DomElement {
    return new DomElement(localName, namespace, outputAttributes(node, this.resolve));
  }

  /** A cell straight in a table or row group goes in the row a parser opens for it and the cells after it. */
  private impliedRow(group: DomElement): DomElement {
    const last = group.lastElementChild;
    if (last && this.impliedRows.has(last)) return last;
    const row = group.appendChild(new DomElement('tr', 'html', NO_ATTRIBUTES));
    this.impliedRows.add(row);
    return row;
  }
}

/** SVG and MathML content is foreign except where those let HTML in again. */
function namespaceOf(parent: DomElement, name: string): Namespace {
  if (parent.namespace === 'html' || holdsHtml(parent)) return name === 'svg' ? 'svg' : name === 'math' ? 'math' : 'html';
  return parent.namespace;
}

function holdsHtml(el: DomElement): boolean {
  if (el.namespace === 'svg') return SVG_HTML_CONTENT.has(el.localName);
  if (MATH_HTML_CONTENT.has(el.localName)) return true;
  if (el.localName !== 'annotation-xml') return false;
  const encoding = el.getAttribute('encoding')?.toLowerCase();
  return encoding === 'text/html' || encoding === 'application/xhtml+xml';
}

/** Whether a parser reads text here as HTML text, where it drops NULs. */
function htmlText(el: DomElement): boolean {
  return el.namespace === 'html' ? !RAW_TEXT.has(el.nodeName) : holdsHtml(el);
}

function tableOf(el: DomElement | null): DomElement | null {
  for (; el; el = el.parentNode) if (el.nodeName === 'TABLE') return el;
  return null;
}

/** What a parser "foster-parents": put in front of the table, text joining the text already there. */
function insertBeforeTable(inTable: DomElement, node: DomNode): void {
  const table = tableOf(inTable) as DomElement;
  const container = table.parentNode as DomElement;
  const before = table.previousSibling;
  if (node.nodeType === TEXT_NODE && before?.nodeType === TEXT_NODE) before.data += node.data;
  else container.insertBefore(node, table);
}
