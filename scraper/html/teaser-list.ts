/**
 * A list of other stories laid out as cards ("More from this area", "You might also like", a
 * related-posts plugin): several blocks of one kind, each a heading that is all link (the other
 * story's title) with at most a short summary. Found by that shape, whatever the block is named.
 */
import type { Stats } from './content-stats.js';
import { isTag, type AnyNode, type Element } from './dom.js';

const MIN_CARDS = 3;
/** A card holds a title and a summary; longer, it is a section of the article with a linked heading. */
const MAX_CARD_TEXT = 400;
const CARD_HEADINGS = new Set(['h2', 'h3', 'h4', 'h5']);
/** The heading is the link when the link carries this share of its words. */
const LINKED_HEADING = 0.9;

/** `stats` gives the scorer's figures of a kept element (undefined for one left out). */
export function isTeaserList(el: Element, stats: (el: Element) => Stats | undefined): boolean {
  let cards = 0;
  const signatures = new Map<string, number>();
  for (const child of el.children) {
    if (!isTag(child) || !isCard(child, stats)) continue;
    const signature = `${child.name}.${child.attribs.class ?? ''}`;
    const count = (signatures.get(signature) ?? 0) + 1;
    signatures.set(signature, count);
    cards = Math.max(cards, count);
  }
  return cards >= MIN_CARDS;
}

function isCard(el: Element, stats: (el: Element) => Stats | undefined): boolean {
  const text = stats(el)?.text ?? 0;
  if (text === 0 || text > MAX_CARD_TEXT) return false;
  const heading = firstHeading(el);
  const figures = heading && stats(heading);
  return figures !== undefined && figures.text > 0 && figures.links >= figures.text * LINKED_HEADING;
}

function firstHeading(root: Element): Element | undefined {
  const stack: AnyNode[] = [...root.children].reverse();
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    if (!isTag(node)) continue;
    if (CARD_HEADINGS.has(node.name)) return node;
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as AnyNode);
  }
  return undefined;
}
