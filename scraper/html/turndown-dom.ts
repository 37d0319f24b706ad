/**
 * The DOM turndown converts: the subset of the browser DOM that turndown 7.2, the two
 * turndown-plugin-gfm rules we use (highlightedCodeBlock, taskListItems) and our own rules read,
 * on plain objects. Building it from the selection (turndown-tree.ts) costs a fraction of what
 * parsing serialised HTML into domino's full DOM and then cloning it did, and `textContent`, which
 * turndown asks of every node (blank checks, flanking whitespace), is computed once per element.
 *
 * DOM semantics kept: `nodeName` is upper case for HTML elements and as written for SVG and MathML
 * ones; `childNodes` holds text and elements (there are no comments), `children` elements only;
 * text `data`/`nodeValue` are settable and `removeChild` works, because turndown collapses
 * whitespace by editing the tree before it converts it.
 */
import type TurndownService from 'turndown';

export const ELEMENT_NODE = 1;
export const TEXT_NODE = 3;

export type Namespace = 'html' | 'svg' | 'math';
export type DomNode = DomElement | DomText;

/**
 * Bumped by every change to any tree. A cached `textContent` is good while the generation it was
 * computed in lasts: turndown edits the tree only while collapsing whitespace, before it reads any
 * `textContent`, so each element's text is computed once per conversion.
 */
let generation = 0;

const NO_NODES: readonly DomNode[] = Object.freeze([]);

/** What turndown writes on each node as it converts it. */
export interface FlankingWhitespace {
  leading: string;
  trailing: string;
}

abstract class DomChild {
  parentNode: DomElement | null = null;
  previousSibling: DomNode | null = null;
  nextSibling: DomNode | null = null;
  // Declared so that turndown's annotations do not change the objects' shape mid-conversion.
  isBlock = false;
  isCode = false;
  isBlank = false;
  flankingWhitespace: FlankingWhitespace | undefined = undefined;

  get parentElement(): DomElement | null {
    return this.parentNode;
  }
}

export class DomText extends DomChild {
  private value: string;

  constructor(data: string) {
    super();
    this.value = data;
  }

  get nodeType(): typeof TEXT_NODE {
    return TEXT_NODE;
  }

  get nodeName(): '#text' {
    return '#text';
  }

  get data(): string {
    return this.value;
  }

  set data(data: string) {
    this.value = data;
    generation++;
  }

  get nodeValue(): string {
    return this.value;
  }

  set nodeValue(data: string) {
    this.data = data;
  }

  get textContent(): string {
    return this.value;
  }

  get firstChild(): null {
    return null;
  }

  get childNodes(): readonly DomNode[] {
    return NO_NODES;
  }
}

export class DomElement extends DomChild {
  readonly nodeName: string;
  firstChild: DomNode | null = null;
  lastChild: DomNode | null = null;
  private nodeList: DomNode[] | undefined = undefined;
  private elementList: DomElement[] | undefined = undefined;
  private text = '';
  private textGeneration = -1;

  /**
   * @param localName lower case for HTML elements, as the parser gives it.
   * @param attributes names in lower case; shared with the source tree, so never written to.
   */
  constructor(
    readonly localName: string,
    readonly namespace: Namespace,
    private readonly attributes: Readonly<Record<string, string>>,
  ) {
    super();
    this.nodeName = namespace === 'html' ? upperCase(localName) : localName;
  }

  get nodeType(): typeof ELEMENT_NODE {
    return ELEMENT_NODE;
  }

  get childNodes(): readonly DomNode[] {
    if (this.nodeList === undefined) {
      const nodes: DomNode[] = [];
      for (let node = this.firstChild; node; node = node.nextSibling) nodes.push(node);
      this.nodeList = nodes;
    }
    return this.nodeList;
  }

  get children(): readonly DomElement[] {
    if (this.elementList === undefined) {
      const elements: DomElement[] = [];
      for (let node = this.firstChild; node; node = node.nextSibling) {
        if (node.nodeType === ELEMENT_NODE) elements.push(node);
      }
      this.elementList = elements;
    }
    return this.elementList;
  }

  get lastElementChild(): DomElement | null {
    let node = this.lastChild;
    while (node && node.nodeType !== ELEMENT_NODE) node = node.previousSibling;
    return node;
  }

  get textContent(): string {
    if (this.textGeneration !== generation) {
      let text = '';
      for (let node = this.firstChild; node; node = node.nextSibling) text += node.textContent;
      this.text = text;
      this.textGeneration = generation;
    }
    return this.text;
  }

  /**
   * `name` in lower case, as it is stored. The value as a parser would give it: line breaks
   * normalised and NULs replaced (the source tree keeps them as written).
   */
  getAttribute(name: string): string | null {
    const value = this.attributes[name];
    // A plain object: `constructor` and friends come from its prototype and are not attributes.
    if (typeof value !== 'string') return null;
    return value.includes('\r') || value.includes('\0') ? value.replace(/\r\n?/g, '\n').replace(/\0/g, '\uFFFD') : value;
  }

  get className(): string {
    return this.getAttribute('class') ?? '';
  }

  /** An `<input>`'s type as the DOM reflects it (task list items read it); other elements have none. */
  get type(): string | undefined {
    if (this.nodeName !== 'INPUT') return undefined;
    const type = this.getAttribute('type')?.toLowerCase() ?? '';
    return INPUT_TYPES.has(type) ? type : 'text';
  }

  get checked(): boolean {
    return this.nodeName === 'INPUT' && this.getAttribute('checked') !== null;
  }

  /** Only a type selector (a tag name) is supported. */
  closest(selector: string): DomElement | null {
    if (!TYPE_SELECTOR.test(selector)) throw new Error(`closest() supports tag names only, not ${JSON.stringify(selector)}`);
    const lower = selector.toLowerCase();
    if (this.localName === (this.namespace === 'html' ? lower : selector)) return this;
    return this.parentNode?.closest(selector) ?? null;
  }

  /** Descendants in document order, matched as in an HTML document; a plain array, not a live collection. */
  getElementsByTagName(name: string): DomElement[] {
    const found: DomElement[] = [];
    const lower = name.toLowerCase();
    const htmlName = this.namespace === 'html' ? lower : name;
    for (let node = nextInSubtree(this, this); node; node = nextInSubtree(node, this)) {
      if (node.nodeType !== ELEMENT_NODE) continue;
      if (name === '*' || node.localName === (node.namespace === 'html' ? htmlName : name)) found.push(node);
    }
    return found;
  }

  appendChild<T extends DomNode>(node: T): T {
    return this.insertBefore(node, null);
  }

  insertBefore<T extends DomNode>(node: T, reference: DomNode | null): T {
    if (reference && reference.parentNode !== this) throw new Error('insertBefore: the reference is not a child of this element');
    if (node.parentNode) node.parentNode.removeChild(node);
    const previous = reference ? reference.previousSibling : this.lastChild;
    node.parentNode = this;
    node.previousSibling = previous;
    node.nextSibling = reference;
    if (previous) previous.nextSibling = node;
    else this.firstChild = node;
    if (reference) reference.previousSibling = node;
    else this.lastChild = node;
    this.changed();
    return node;
  }

  removeChild<T extends DomNode>(node: T): T {
    if (node.parentNode !== this) throw new Error('removeChild: not a child of this element');
    const { previousSibling, nextSibling } = node;
    if (previousSibling) previousSibling.nextSibling = nextSibling;
    else this.firstChild = nextSibling;
    if (nextSibling) nextSibling.previousSibling = previousSibling;
    else this.lastChild = previousSibling;
    node.parentNode = null;
    node.previousSibling = null;
    node.nextSibling = null;
    this.changed();
    return node;
  }

  private changed(): void {
    this.nodeList = undefined;
    this.elementList = undefined;
    generation++;
  }
}

/**
 * Turndown and the rules compare `nodeName` with literals and look it up in lists for every node.
 * Literals are internalised strings, and two internalised strings compare by pointer; a fresh
 * `toUpperCase()` result would be compared character by character each time. V8 internalises
 * property keys, so `Object.keys` hands back the internalised copy; one per tag name, kept here.
 * Bounded, as pages can invent any number of custom element names.
 */
const upperCaseNames = new Map<string, string>();
const MAX_CACHED_NAMES = 1024;
function upperCase(name: string): string {
  let upper = upperCaseNames.get(name);
  if (upper === undefined) {
    upper = Object.keys({ [name.toUpperCase()]: true })[0] as string;
    if (upperCaseNames.size >= MAX_CACHED_NAMES) upperCaseNames.clear();
    upperCaseNames.set(name, upper);
  }
  return upper;
}

const TYPE_SELECTOR = /^[a-z][a-z0-9-]*$/i;

const INPUT_TYPES = new Set([
  'text', 'hidden', 'search', 'tel', 'url', 'email', 'password', 'datetime', 'date', 'month', 'week', 'time',
  'datetime-local', 'number', 'range', 'color', 'checkbox', 'radio', 'file', 'submit', 'image', 'reset', 'button',
]);

/** Pre-order successor of `node` within `root`'s subtree, without a stack. */
function nextInSubtree(node: DomNode, root: DomElement): DomNode | null {
  if (node.firstChild) return node.firstChild;
  for (let current: DomNode | null = node; current && current !== root; current = current.parentNode) {
    if (current.nextSibling) return current.nextSibling;
  }
  return null;
}

/** A rule written against this DOM; `addRule` and `removeRule` hand it to turndown. */
export interface DomRule {
  filter: string | string[] | ((node: DomElement) => boolean);
  replacement: (content: string, node: DomElement) => string;
}

/**
 * Turndown types its rules for browser DOM nodes; in production ours only ever see this DOM
 * (toMarkdown converts nothing else), so this is the one place where the two types meet.
 */
export function addRule(service: TurndownService, key: string, rule: DomRule): void {
  service.addRule(key, rule as unknown as TurndownService.Rule);
}

export function removeRule(service: TurndownService, filter: (node: DomElement) => boolean): void {
  service.remove(filter as unknown as TurndownService.FilterFunction);
}

/** Turndown clones what it converts: `source.cloneNode(true)` must give a fresh tree each time. */
export interface TurndownSource {
  readonly nodeType: typeof ELEMENT_NODE;
  cloneNode(deep: true): DomElement;
}

export function convert(service: TurndownService, source: TurndownSource): string {
  return service.turndown(source as unknown as HTMLElement);
}
