/**
 * The `html` format: the selected content serialised with the left-out nodes removed, comments
 * dropped, and link and image URLs made absolute (an image's `src` becomes its largest `srcset`
 * candidate, as Firecrawl does).
 */
import { isTag, isText, type AnyNode, type Element } from './dom.js';
import { imageSource, type UrlResolver } from './urls.js';

const VOID = new Set([
  'area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr',
]);

export function toHtml(roots: readonly AnyNode[], skip: ReadonlySet<AnyNode>, resolve: UrlResolver): string {
  let out = '';
  // Closing tags sit on the stack as strings, so deep nesting needs no recursion.
  const stack: Array<AnyNode | string> = [...roots].reverse();
  while (stack.length > 0) {
    const item = stack.pop() as AnyNode | string;
    if (typeof item === 'string') {
      out += item;
    } else if (isText(item)) {
      out += escapeText(item.data);
    } else if (isTag(item) && !skip.has(item)) {
      out += openTag(item, resolve);
      if (VOID.has(item.name)) continue;
      stack.push(`</${item.name}>`);
      for (let i = item.children.length - 1; i >= 0; i--) stack.push(item.children[i] as AnyNode);
    }
  }
  return out;
}

/**
 * The attributes an element is output with: `el.attribs` itself when nothing changes, so callers
 * must not mutate the result.
 */
export function outputAttributes(el: Element, resolve: UrlResolver): Readonly<Record<string, string>> {
  const { attribs } = el;
  if (el.name === 'a' && attribs.href) return { ...attribs, href: resolve(attribs.href) ?? attribs.href };
  if (el.name !== 'img') return attribs;
  const copy = { ...attribs };
  const src = imageSource(el);
  if (src) copy.src = src.startsWith('data:') ? src : (resolve(src) ?? src);
  if (copy.srcset) copy.srcset = absoluteSrcset(copy.srcset, resolve);
  return copy;
}

function openTag(el: Element, resolve: UrlResolver): string {
  let tag = `<${el.name}`;
  for (const [name, value] of Object.entries(outputAttributes(el, resolve))) tag += ` ${name}="${escapeAttribute(value)}"`;
  return `${tag}>`;
}

function absoluteSrcset(srcset: string, resolve: UrlResolver): string {
  return srcset.replace(/(^|,)(\s*)([^\s,][^\s]*)/g, (match, comma: string, space: string, url: string) => {
    const trimmed = url.replace(/,+$/, '');
    const absolute = resolve(trimmed);
    return absolute ? `${comma}${space}${absolute}${url.slice(trimmed.length)}` : match;
  });
}

function escapeText(text: string): string {
  return text.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
}

function escapeAttribute(value: string): string {
  return value.replace(/[&"]/g, (c) => (c === '&' ? '&amp;' : '&quot;'));
}
