/** The `links` and `images` formats: absolute http(s) URLs from the whole page, de-duplicated in document order. */
import { walkElements, type Document } from './dom.js';
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
