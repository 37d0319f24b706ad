/**
 * Page metadata the way Firecrawl reports it: a few well-known keys under camelCase names, plus
 * every `<meta name|property|itemprop>` verbatim (string, or string[] when repeated) so clients
 * that read e.g. `metadata["og:title"]` or `metadata["twitter:card"]` keep working.
 */
import type { TransformedPage } from '../types.js';
import { collapseWhitespace, textContent, walkElements, type Document } from './dom.js';
import type { UrlResolver } from './urls.js';

export type HtmlMetadata = TransformedPage['metadata'];

/** Meta names (lower-cased) that Firecrawl also exposes under a camelCase key. */
const NAMED_KEYS: Record<string, string> = {
  keywords: 'keywords',
  robots: 'robots',
  'og:title': 'ogTitle',
  'og:description': 'ogDescription',
  'og:url': 'ogUrl',
  'og:image': 'ogImage',
  'og:audio': 'ogAudio',
  'og:determiner': 'ogDeterminer',
  'og:locale': 'ogLocale',
  'og:locale:alternate': 'ogLocaleAlternate',
  'og:site_name': 'ogSiteName',
  'og:video': 'ogVideo',
  'dcterms.created': 'dcTermsCreated',
  'dc.date.created': 'dcDateCreated',
  'dc.date': 'dcDate',
  'dcterms.type': 'dcTermsType',
  'dc.type': 'dcType',
  'dcterms.audience': 'dcTermsAudience',
  'dcterms.subject': 'dcTermsSubject',
  'dc.subject': 'dcSubject',
  'dc.description': 'dcDescription',
  'dcterms.keywords': 'dcTermsKeywords',
  'article:modified_time': 'modifiedTime',
  'article:published_time': 'publishedTime',
  'article:tag': 'articleTag',
  'article:section': 'articleSection',
};

/** Keys that stay arrays even when the page has one value, as in Firecrawl. */
const ALWAYS_ARRAY = new Set(['ogLocaleAlternate']);

/**
 * Keys the page must not set through a verbatim meta tag: the caller owns the response-derived ones,
 * and `__proto__` would reach the object's prototype.
 */
const RESERVED = new Set([
  '__proto__',
  'sourceURL',
  'url',
  'statusCode',
  'contentType',
  'scrapeId',
  'error',
  'proxyUsed',
  'cacheState',
  'cachedAt',
  'creditsUsed',
  'numPages',
]);

export function extractMetadata(doc: Document, resolve: UrlResolver): HtmlMetadata {
  const verbatim = new Map<string, string[]>();
  const descriptions: string[] = [];
  let title: string | undefined;
  let language: string | undefined;
  let favicon: string | undefined;

  walkElements(doc, (el) => {
    const { attribs } = el;
    switch (el.name) {
      case 'html':
        language ??= attribs.lang?.trim() || undefined;
        break;
      case 'title':
        // An SVG <title> inside the body is a tooltip, not the page title; the first one wins.
        title ??= collapseWhitespace(textContent(el)) || undefined;
        return false;
      case 'link':
        if (!favicon && attribs.href && /(^|\s)icon(\s|$)/i.test(attribs.rel ?? '')) favicon = resolve(attribs.href);
        break;
      case 'meta': {
        const name = attribs.name ?? attribs.property ?? attribs.itemprop;
        const content = attribs.content;
        if (!name || content === undefined) break;
        if (name.toLowerCase() === 'description') descriptions.push(content);
        const values = verbatim.get(name);
        if (values) values.push(content);
        else verbatim.set(name, [content]);
        break;
      }
      case 'svg':
        return false;
    }
    return true;
  });

  const metadata: HtmlMetadata = {};
  for (const [name, values] of verbatim) {
    if (RESERVED.has(name)) continue;
    metadata[name] = values.length === 1 ? values[0] : values;
  }
  const named = new Map<string, string[]>();
  for (const [name, values] of verbatim) {
    const key = NAMED_KEYS[name.toLowerCase()];
    if (key) named.set(key, [...(named.get(key) ?? []), ...values]);
  }
  for (const [key, values] of named) {
    metadata[key] = values.length === 1 && !ALWAYS_ARRAY.has(key) ? values[0] : values;
  }
  if (descriptions.length > 0) metadata.description = descriptions.join(', ');
  if (title !== undefined) metadata.title = title;
  if (language !== undefined) metadata.language = language;
  if (favicon !== undefined) metadata.favicon = favicon;
  return metadata;
}
