/**
 * A list of other stories laid out as cards ("More from this area", "You might also like", a
 * related-posts plugin): several blocks of one kind, each a heading that is all link (the other
 * story's title) with at most a short summary. Found by that shape, whatever the block is named.
 */
import { isTag, textContent, type AnyNode, type Element } from './dom.js';

const MIN_CARDS = 3;
/** A card holds a title and a summary; longer, it is a section of the article with a linked heading. */
const MAX_CARD_TEXT = 400;
const CARD_HEADINGS = new Set(['h2', 'h3', 'h4', 'h5']);
/** The heading is the link when the link carries this share of its words. */
const LINKED_HEADING = 0.9;

export function isTeaserList(el: Element): boolean {
  const children = el.children.filter((c): c is Element => isTag(c));
  if (children.length < MIN_CARDS) return false;
  const signatures = new Map<string, number>();
  for (const child of children) {
    if (!isCard(child)) continue;
    const signature = `${child.name}.${child.attribs.class ?? ''}`;
    signatures.set(signature, (signatures.get(signature) ?? 0) + 1);
  }
  return [...signatures.values()].some((count) => count >= MIN_CARDS);
}

function isCard(el: Element): boolean {
  const text = textContent(el).trim().length;
  if (text === 0 || text > MAX_CARD_TEXT) return false;
  const heading = findFirst(el, (node) => CARD_HEADINGS.has(node.name));
  if (!heading) return false;
  const headingText = textContent(heading).trim().length;
  const link = findFirst(heading, (node) => node.name === 'a');
  return headingText > 0 && link !== undefined && textContent(link).trim().length >= headingText * LINKED_HEADING;
}

function findFirst(root: Element, test: (el: Element) => boolean): Element | undefined {
  const stack: AnyNode[] = [...root.children].reverse();
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    if (!isTag(node)) continue;
    if (test(node)) return node;
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as AnyNode);
  }
  return undefined;
}
