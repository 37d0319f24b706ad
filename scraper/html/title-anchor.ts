/**
 * The article follows its title. When the scorer's pick lies apart from the heading that repeats
 * the page's title (a related-stories block, a sidebar widget or a comment thread outscored a short
 * post), or holds it only as a wrapper whose name won it the lead (the post's column and the
 * sidebar's), the post is the content under that heading: a list of links or a table the paragraph
 * scores cannot see is still the post when it sits under the post's title.
 */
import type { Stats } from './content-stats.js';
import { isElement, textContent, walkElements, type AnyNode, type Element, type ParentNode } from './dom.js';

const HEADINGS = new Set(['h1', 'h2', 'h3']);
/** Share of a heading's words that must be the title's, and of the title's words it must give. */
const HEADING_IN_TITLE = 0.8;
const TITLE_IN_HEADING = 0.5;
/** Text beyond the heading's own that makes an ancestor the post rather than its header. */
const MIN_POST_TEXT = 150;
/** The post must weigh this share of the pick it replaces: a caption under a title is no post. */
const MIN_SHARE_OF_PICK = 0.2;
/** A scored block inside the post stands for it when it holds this share of the post's text. */
const MIN_BLOCK_SHARE = 0.5;

/** How far above the heading its article header may be, and what names one. */
const HEADER_DEPTH = 6;
const HEADER_NAME = /(?:^|[\s_-])(?:header|head|headline|heading|title)(?:$|[\s_-])/i;

export interface AnchorPage {
  /** Statistics of a kept element; undefined for one left out. */
  stats(el: Element): Stats | undefined;
  scores: ReadonlyMap<Element, number>;
}

export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Separators between a page title's parts: "Story | Site", "Site: Story", "Story – Site". */
const TITLE_PARTS = /\s+[|–—·•»/-]+\s+|:\s+/u;

/**
 * The words of the article's own title: of each title given (`<title>`, og:title), its longest
 * part, so the site's name beside it ("Plot 27: First frost", "Story | The Daily Post") does not
 * make the site's logo heading look like the article's title.
 */
export function articleTitleWords(titles: ReadonlyArray<string | undefined>): Set<string> {
  const out = new Set<string>();
  for (const title of titles) {
    const parts = (title ?? '').split(TITLE_PARTS).map(words);
    const longest = parts.reduce((a, b) => (b.length > a.length ? b : a), []);
    for (const w of longest) out.add(w);
  }
  return out;
}

/** The kept `<h1>`–`<h3>` that best repeats the title (the post's title, not the site's name). */
export function titleHeading(root: ParentNode, titleWords: ReadonlySet<string>, page: AnchorPage): Element | undefined {
  if (titleWords.size === 0) return undefined;
  let best: Element | undefined;
  let bestCover = TITLE_IN_HEADING;
  walkElements(root, (el) => {
    if (!page.stats(el)) return false;
    if (!HEADINGS.has(el.name)) return true;
    const headingWords = new Set(words(textContent(el)));
    const shared = [...headingWords].filter((w) => titleWords.has(w)).length;
    const cover = shared / titleWords.size;
    if (headingWords.size > 0 && shared / headingWords.size >= HEADING_IN_TITLE && cover > bestCover) {
      best = el;
      bestCover = cover;
    }
    return false;
  });
  return best;
}

/**
 * The post under `heading`, when `top` lies apart from it, or holds it but leads by its class name
 * alone (`topWeight`, its class weight: a "page-body" around the post's column and the sidebar's,
 * outscored without its name by a block inside it); undefined when `top` stands.
 */
export function postUnderTitle(top: Element, heading: Element, page: AnchorPage, topWeight: number): Element | undefined {
  if (top === heading) return undefined;
  const holds = contains(top, heading);
  if (holds && !wonByName(top, topWeight, page)) return undefined;
  const head = headerAround(heading);
  const headingText = page.stats(head)?.text ?? 0;
  let post: Element | undefined;
  for (let node = head.parent; isElement(node); node = node.parent) {
    if (node === top || (!holds && contains(node, top))) return undefined;
    const text = page.stats(node)?.text ?? 0;
    if (text - headingText >= MIN_POST_TEXT) {
      post = node;
      break;
    }
  }
  const postText = post ? (page.stats(post)?.text ?? 0) - headingText : 0;
  if (!post || postText < (page.stats(top)?.text ?? 0) * MIN_SHARE_OF_PICK) return undefined;
  // Inside the pick, the post is already the scorer's: narrowing it further to its best block would cut its standfirst.
  if (holds) return post;
  let block: Element | undefined;
  let blockScore = 0;
  for (const [el, score] of page.scores) {
    if (score > blockScore && el !== post && contains(post, el)) {
      block = el;
      blockScore = score;
    }
  }
  const blockText = block ? (page.stats(block)?.text ?? 0) : 0;
  return block && blockText >= postText * MIN_BLOCK_SHARE ? block : post;
}

function wonByName(top: Element, weight: number, page: AnchorPage): boolean {
  if (weight <= 0) return false;
  const earned = (page.scores.get(top) ?? 0) - weight;
  for (const [el, score] of page.scores) if (score > earned && el !== top && contains(top, el)) return true;
  return false;
}

/**
 * The article header that holds the heading (with the standfirst, byline and date), which is no
 * more the post than the heading is: the post is what holds the header and more.
 */
function headerAround(heading: Element): Element {
  let node: Element = heading;
  for (let i = 0, up = heading.parent; i < HEADER_DEPTH && isElement(up); i++, up = up.parent) {
    if (up.name === 'header' || HEADER_NAME.test(`${up.attribs.class ?? ''} ${up.attribs.id ?? ''}`)) node = up;
  }
  return node;
}

function contains(ancestor: Element, node: AnyNode): boolean {
  for (let current = node.parent; current; current = current.parent) if (current === ancestor) return true;
  return false;
}
