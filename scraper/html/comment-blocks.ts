/**
 * Comments recognised by what they are rather than by class names: schema.org `Comment` items,
 * and threads of repeated blocks that each carry their own "Reply" link (WordPress, Disqus,
 * Blogger and hand-rolled engines all render one per comment, whatever they call the block).
 */
import { isElement, textContent, walkElements, type Element, type ParentNode } from './dom.js';

const REPLY_LABEL = /^(reply|reply to this comment|antworten|répondre|responder|rispondi|antwoorden|odpowiedz|svara|svar|vastaa|返信|回复|回覆|답글)$/iu;
const LABEL_EDGES = /^[^\p{L}]+|[^\p{L}]+$/gu;
/** Longer than this, a link is a sentence that happens to say "reply", never a control. */
const MAX_LABEL = 40;
const COMMENT_ITEMTYPE = /schema\.org\/(Comment|UserComments)\b/i;

/** An element that declares itself a comment in schema.org terms. */
export function isSchemaComment(el: Element): boolean {
  const { itemprop, itemtype } = el.attribs;
  return itemprop === 'comment' || itemprop === 'comments' || (itemtype !== undefined && COMMENT_ITEMTYPE.test(itemtype));
}

/**
 * The comment blocks of a thread: for each reply control, its outermost ancestor that holds no
 * other one. A post has at most one such control (a "Reply" link under it), so blocks count only
 * when at least two of them share a tag and class: a thread, not the post above it.
 */
export function replyBlocks(root: ParentNode): Set<Element> {
  const controls: Element[] = [];
  walkElements(root, (el) => {
    if (el.name !== 'a' && el.name !== 'button') return true;
    const label = textContent(el);
    if (label.length <= MAX_LABEL && REPLY_LABEL.test(label.replace(LABEL_EDGES, ''))) controls.push(el);
    return false;
  });
  if (controls.length < 2) return new Set();
  const counts = new Map<Element, number>();
  for (const control of controls) {
    for (let node = control.parent; isElement(node); node = node.parent) counts.set(node, (counts.get(node) ?? 0) + 1);
  }
  const bySignature = new Map<string, Element[]>();
  for (const control of controls) {
    let block: Element | undefined;
    for (let node = control.parent; isElement(node) && counts.get(node) === 1; node = node.parent) block = node;
    if (!block) continue;
    const signature = `${block.name}.${block.attribs.class ?? ''}`;
    bySignature.set(signature, [...(bySignature.get(signature) ?? []), block]);
  }
  return new Set([...bySignature.values()].filter((blocks) => blocks.length >= 2).flat());
}
