/** The `links` and `images` formats: absolute http(s) URLs from the whole page, de-duplicated in document order. */
import type { LinkText } from '../../lib/crawl/relevance.js';
import { isTag, isText, textContent, walkElements, type AnyNode, type Document, type Element } from './dom.js';
import { imageSource, type UrlResolver } from './urls.js';

export function extractLinks(doc: Document, resolve: UrlResolver): string[] {
  const seen = new Set<string>();
  walkElements(doc, (el) => {
    if ((el.name === 'a' || el.name === 'area') && el.attribs.href) {
      const url = httpUrl(resolve(el.attribs.href), true);
      if (url) seen.add(url);
    }
  });
  return [...seen];
}

/** Elements whose text is one unit of meaning: a link's surroundings are its nearest one's. */
const BLOCKS: ReadonlySet<string> = new Set([
  'p', 'li', 'td', 'th', 'dd', 'dt', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'figcaption', 'caption', 'summary',
]);
/** Enough words to tell what a link is about; a block's whole text could be a page's. */
const MAX_TEXT = 300;

/**
 * The links of `extractLinks`, each with its text (anchor text, title, image alt) and the text
 * around it (its block's text outside any link, so the other entries of a menu do not lend a link
 * their words), of every anchor to the URL. Each block's text is read once, however many links it holds.
 */
export function extractLinkTexts(doc: Document, resolve: UrlResolver): LinkText[] {
  const byUrl = new Map<string, LinkText>();
  const blockText = new Map<Element, string>();
  walkElements(doc, (el) => {
    if ((el.name !== 'a' && el.name !== 'area') || !el.attribs.href) return;
    const url = httpUrl(resolve(el.attribs.href), true);
    if (!url) return;
    const text = squash([textContent(el), el.attribs.title ?? '', el.attribs.alt ?? '', ...imageAlts(el)].join(' '));
    const block = blockOf(el);
    let around = '';
    if (block) {
      around = blockText.get(block) ?? squash(textOutsideLinks(block));
      blockText.set(block, around);
    }
    const known = byUrl.get(url);
    if (!known) byUrl.set(url, { url, text, around });
    else {
      // Every anchor to the URL speaks for it: a bare menu entry must not hide a described link.
      known.text = squash(`${known.text} ${text}`);
      if (around && !known.around.includes(around)) known.around = squash(`${known.around} ${around}`);
    }
  });
  return [...byUrl.values()];
}

function blockOf(el: Element): Element | undefined {
  for (let node = el.parent; node && isTag(node); node = node.parent) if (BLOCKS.has(node.name)) return node;
  return undefined;
}

function imageAlts(el: Element): string[] {
  const alts: string[] = [];
  walkElements(el, (child) => {
    if (child.name === 'img' && child.attribs.alt) alts.push(child.attribs.alt);
  });
  return alts;
}

function textOutsideLinks(block: Element): string {
  let out = '';
  const stack: AnyNode[] = [block];
  while (stack.length > 0 && out.length < MAX_TEXT * 4) {
    const node = stack.pop() as AnyNode;
    if (isText(node)) out += ` ${node.data}`;
    else if (isTag(node) && node.name !== 'a' && node.name !== 'script' && node.name !== 'style') {
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as AnyNode);
    }
  }
  return out;
}

function squash(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, MAX_TEXT);
}

export function extractImages(doc: Document, resolve: UrlResolver): string[] {
  const seen = new Set<string>();
  walkElements(doc, (el) => {
    if (el.name === 'img') {
      const url = httpUrl(resolve(imageSource(el)), false);
      if (url) seen.add(url);
    }
  });
  return [...seen];
}

/** Same-page fragments (`#top`, `/a#b`) would otherwise list one page many times. */
function httpUrl(url: string | undefined, dropFragment: boolean): string | undefined {
  if (!url || !(url.startsWith('https://') || url.startsWith('http://'))) return undefined;
  if (!dropFragment) return url;
  const hash = url.indexOf('#');
  return hash === -1 ? url : url.slice(0, hash);
}
