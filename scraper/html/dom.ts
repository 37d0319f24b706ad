/**
 * The page is parsed once, with htmlparser2 into a domhandler tree (several times faster than a
 * full browser-like DOM), and every later step walks that tree. These are the few shared walks.
 */
import { parseDocument } from 'htmlparser2';
import { isTag, isText, type AnyNode, type Document, type Element, type ParentNode } from 'domhandler';

export type { AnyNode, Document, Element, ParentNode };
export { isTag, isText };

/** `isTag` that also accepts the `null` parent of a detached or root node. */
export function isElement(node: AnyNode | null | undefined): node is Element {
  return node != null && isTag(node);
}

export function parseHtml(html: string): Document {
  return parseDocument(html);
}

/**
 * Visit elements under `root` in document order. Returning `false` from `visit` skips that
 * element's subtree. Iterative, so pathological nesting cannot overflow the stack.
 */
export function walkElements(root: ParentNode, visit: (el: Element) => boolean | void): void {
  const stack: AnyNode[] = [];
  for (let i = root.children.length - 1; i >= 0; i--) stack.push(root.children[i] as AnyNode);
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    if (!isTag(node)) continue;
    if (visit(node) === false) continue;
    const { children } = node;
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as AnyNode);
  }
}

export function findElement(root: ParentNode, name: string): Element | undefined {
  let found: Element | undefined;
  walkElements(root, (el) => {
    if (found) return false;
    if (el.name === name) found = el;
    return found === undefined;
  });
  return found;
}

export function hasClassOrId(el: Element): boolean {
  return Boolean(el.attribs.class || el.attribs.id);
}

/** The class and id attributes as one string, for the name patterns scorers test. */
export function classAndId(el: Element): string {
  return `${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`;
}

/** Concatenated text of a subtree, as `textContent` would give it. */
export function textContent(node: AnyNode): string {
  if (isText(node)) return node.data;
  if (!isTag(node)) return '';
  let out = '';
  const stack: AnyNode[] = [node];
  while (stack.length > 0) {
    const current = stack.pop() as AnyNode;
    if (isText(current)) out += current.data;
    else if (isTag(current)) {
      for (let i = current.children.length - 1; i >= 0; i--) stack.push(current.children[i] as AnyNode);
    }
  }
  return out;
}

/** Text of a subtree leaving out `skip` subtrees (scripts, dropped blocks), whitespace collapsed. */
export function textOutside(node: Element, skip: ReadonlySet<AnyNode>): string {
  let out = '';
  const stack: AnyNode[] = [node];
  while (stack.length > 0) {
    const current = stack.pop() as AnyNode;
    if (isText(current)) out += current.data;
    else if (isTag(current) && !skip.has(current)) {
      for (let i = current.children.length - 1; i >= 0; i--) stack.push(current.children[i] as AnyNode);
    }
  }
  return collapseWhitespace(out);
}

/** Characters that reach the output as something other than whitespace. */
export function isVisibleChar(code: number): boolean {
  return code > 32 && code !== 160;
}

/** Visible characters of the text under `roots`, leaving out `skip` subtrees. Order does not matter to a count. */
export function visibleTextLength(roots: readonly AnyNode[], skip: ReadonlySet<AnyNode>): number {
  let length = 0;
  const stack = roots.slice();
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    if (isText(node)) {
      const { data } = node;
      for (let i = 0; i < data.length; i++) if (isVisibleChar(data.charCodeAt(i))) length++;
    } else if (isTag(node) && !skip.has(node)) {
      const { children } = node;
      for (let i = 0; i < children.length; i++) stack.push(children[i] as AnyNode);
    }
  }
  return length;
}

export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
