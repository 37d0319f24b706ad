/**
 * A list of other stories laid out as cards ("More from this area", "You might also like", a
 * related-posts plugin): several blocks of one kind, each a heading that is all link (the other
 * story's title) with at most a short summary. Found by that shape, whatever the block is named.
 */
import { RELATED_LABEL } from './boilerplate.js';
import type { Stats } from './content-stats.js';
import { isTag, textContent, type AnyNode, type Element } from './dom.js';

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

/** Either shape of a list of other posts. */
export function isListOfOtherPosts(el: Element, stats: (el: Element) => Stats | undefined): boolean {
  return isTeaserList(el, stats) || isAnnouncedList(el, stats);
}

/** Items of one kind after the heading: a list of other posts, not a section of the article. */
const MIN_ANNOUNCED_ITEMS = 2;
/** Paragraphs after a "Related" heading are a section of the article ("Related work"), never cards. */
const PROSE_TAGS = new Set(['p', 'blockquote', 'pre', 'table', 'figure']);

/**
 * The other shape of a list of other posts: a block that opens with a heading announcing them
 * ("You may like...", "Você pode gostar", "Related posts"), then two or more items of one kind
 * (tag and first class word), each linking somewhere: excerpts of other posts, however long.
 */
function isAnnouncedList(el: Element, stats: (el: Element) => Stats | undefined): boolean {
  // The heading counts even when the scorer dropped it for a class name such as "related-title".
  const children = el.children.filter((c): c is Element => isTag(c) && textContent(c).trim() !== '');
  const heading = children[0];
  if (!heading || !CARD_HEADINGS.has(heading.name) || !RELATED_LABEL.test(textContent(heading).trim())) return false;
  const kinds = new Map<string, number>();
  for (const item of children.slice(1)) {
    if (!stats(item)) continue;
    if (PROSE_TAGS.has(item.name) || !hasLink(item)) return false;
    const kind = `${item.name}.${(item.attribs.class ?? '').trim().split(/\s+/)[0]}`;
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  return Math.max(0, ...kinds.values()) >= MIN_ANNOUNCED_ITEMS;
}

function hasLink(root: Element): boolean {
  const stack: AnyNode[] = [...root.children];
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    if (!isTag(node)) continue;
    if (node.name === 'a' && node.attribs.href) return true;
    stack.push(...node.children);
  }
  return false;
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
