/**
 * Absolute URLs for links, images and metadata: resolved against `<base href>` (itself resolved
 * against the final page URL), with a per-page memo because the same href is resolved for the
 * links list, the markdown and the HTML output.
 */
import { findElement, type Document, type Element } from './dom.js';

export type UrlResolver = (raw: string | undefined) => string | undefined;

export function createUrlResolver(doc: Document, pageUrl: string): UrlResolver {
  const page = parseUrl(pageUrl);
  const baseHref = findElement(doc, 'base')?.attribs.href?.trim();
  const base = (baseHref && page ? parseUrl(baseHref, page) : undefined) ?? page;
  const memo = new Map<string, string | undefined>();
  return (raw) => {
    const href = raw?.trim();
    if (!href) return undefined;
    if (memo.has(href)) return memo.get(href);
    const resolved = parseUrl(href, base)?.href;
    memo.set(href, resolved);
    return resolved;
  };
}

function parseUrl(raw: string, base?: URL): URL | undefined {
  try {
    return new URL(raw, base);
  } catch {
    return undefined;
  }
}

/**
 * The image URL a reader would want: the largest `srcset` candidate, else `src`, else a lazy-load
 * attribute when `src` is missing or only a data: placeholder.
 */
export function imageSource(img: Element): string | undefined {
  const { attribs } = img;
  const fromSrcset = attribs.srcset ? largestSrcsetCandidate(attribs.srcset) : undefined;
  if (fromSrcset) return fromSrcset;
  const src = attribs.src?.trim();
  if (src && !(src.startsWith('data:') && src.length < 200)) return src;
  return attribs['data-src'] ?? attribs['data-lazy-src'] ?? attribs['data-original'] ?? src;
}

/** Width descriptors win over density ones; URLs may contain commas, so this follows the spec's tokenizer. */
export function largestSrcsetCandidate(srcset: string): string | undefined {
  let best: string | undefined;
  let bestWidth = -1;
  let bestDensity = -1;
  let i = 0;
  const n = srcset.length;
  while (i < n) {
    while (i < n && (isSpace(srcset[i]) || srcset[i] === ',')) i++;
    const start = i;
    while (i < n && !isSpace(srcset[i])) i++;
    let url = srcset.slice(start, i);
    let descriptor = '';
    if (url.endsWith(',')) {
      url = url.replace(/,+$/, '');
    } else {
      const descStart = i;
      while (i < n && srcset[i] !== ',') i++;
      descriptor = srcset.slice(descStart, i);
    }
    if (!url) continue;
    const width = /(\d+)w/.exec(descriptor);
    if (width) {
      const w = Number(width[1]);
      if (w > bestWidth) [best, bestWidth] = [url, w];
      continue;
    }
    if (bestWidth >= 0) continue;
    const density = /(\d*\.?\d+)x/.exec(descriptor);
    const d = density ? Number(density[1]) : 1;
    if (d > bestDensity) [best, bestDensity] = [url, d];
  }
  return best;
}

function isSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\n' || c === '\t' || c === '\r' || c === '\f';
}
