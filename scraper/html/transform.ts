/**
 * HTML to the content part of a Document. The page is parsed once; every output is computed from
 * that one tree, and only the outputs asked for are computed.
 */
import type { TransformOptions, TransformedPage } from '../types.js';
import { extractAttributes } from './attributes.js';
import { parseHtml } from './dom.js';
import { toHtml } from './html-output.js';
import { extractImages, extractLinks, extractLinkTexts } from './links.js';
import { FALLBACK_WARNING, selectContent } from './main-content.js';
import { toMarkdown } from './markdown.js';
import { extractMetadata } from './metadata.js';
import { createUrlResolver } from './urls.js';

export function transformHtml(html: string, pageUrl: string, options: TransformOptions): TransformedPage {
  const { want } = options;
  const doc = parseHtml(html);
  const resolve = createUrlResolver(doc, pageUrl);
  const metadata = extractMetadata(doc, resolve);
  const page: TransformedPage = { metadata };
  if (want.rawHtml) page.rawHtml = html;
  if (want.links) page.links = extractLinks(doc, resolve);
  if (want.linkTexts) page.linkTexts = extractLinkTexts(doc, resolve);
  if (want.images) page.images = extractImages(doc, resolve);
  if (want.attributes) page.attributes = extractAttributes(doc, want.attributes);
  if (!want.markdown && !want.html) return page;

  const titles = [metadata.title, metadata.ogTitle].map((t) => (typeof t === 'string' ? t : undefined));
  const siteName = typeof metadata.ogSiteName === 'string' ? metadata.ogSiteName : undefined;
  let selection = selectContent(doc, { ...options, titles, siteName });
  let markdown = want.markdown
    ? toMarkdown(selection.roots, selection.skip, { resolve, removeBase64Images: options.removeBase64Images })
    : undefined;
  // Text can still vanish in rendering (e.g. it all sat in form controls): never answer empty then.
  if (markdown === '' && options.onlyMainContent && !options.includeTags?.length) {
    selection = { ...selectContent(doc, { ...options, onlyMainContent: false }), warning: FALLBACK_WARNING };
    markdown = toMarkdown(selection.roots, selection.skip, { resolve, removeBase64Images: options.removeBase64Images });
  }
  if (markdown !== undefined) page.markdown = markdown;
  if (want.html) page.html = toHtml(selection.roots, selection.skip, resolve);
  if (selection.warning) page.warning = selection.warning;
  return page;
}
