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

/**
 * `maxDepth`: elements nested deeper are written as their text only. Broken pages can nest
 * thousands of unclosed tags, and a consumer that recurses per element (turndown) would overflow
 * the stack on them.
 */
export function toHtml(
  roots: readonly AnyNode[],
  skip: ReadonlySet<AnyNode>,
  resolve: UrlResolver,
  maxDepth = Number.POSITIVE_INFINITY,
): string {
  let out = '';
  let depth = 0;
  // Closing tags sit on the stack as strings, so deep nesting needs no recursion.
  const stack: Array<AnyNode | string> = [...roots].reverse();
  while (stack.length > 0) {
    const item = stack.pop() as AnyNode | string;
    if (typeof item === 'string') {
      out += item;
      depth--;
    } else if (isText(item)) {
      out += escapeText(item.data);
    } else if (isTag(item) && !skip.has(item)) {
      const flattened = depth >= maxDepth;
      if (!flattened) out += openTag(item, resolve);
      if (VOID.has(item.name)) continue;
      depth++;
      stack.push(flattened ? '' : `</${item.name}>`);
      for (let i = item.children.length - 1; i >= 0; i--) stack.push(item.children[i] as AnyNode);
    }
  }
  return out;
}

function openTag(el: Element, resolve: UrlResolver): string {
  const attribs = { ...el.attribs };
  if (el.name === 'a' && attribs.href) attribs.href = resolve(attribs.href) ?? attribs.href;
  if (el.name === 'img') {
    const src = imageSource(el);
    if (src) attribs.src = src.startsWith('data:') ? src : (resolve(src) ?? src);
    if (attribs.srcset) attribs.srcset = absoluteSrcset(attribs.srcset, resolve);
  }
  let tag = `<${el.name}`;
  for (const [name, value] of Object.entries(attribs)) tag += ` ${name}="${escapeAttribute(value)}"`;
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
