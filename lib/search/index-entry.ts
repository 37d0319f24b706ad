/**
 * What the built-in search index keeps of a stored page (search_documents). Computed by the
 * writer of the page, beside its Document, so the shared database only stores it. The page's text
 * is not part of it: the statement that stores the Document copies the text from there
 * (db/repositories/search-index.ts), so a page's markdown crosses the wire to Postgres once.
 */
import { tsvectorBinary } from './lexemes.js';

export interface SearchEntry {
  url: string;
  host: string;
  title: string;
  description: string;
  /** The primary subtag of the page's language, '' when unknown. */
  lang: string;
  publishedAt: Date | null;
  isArticle: boolean;
  images: { alt: string; src: string }[];
  /** The `tsvector`, in Postgres's binary form: the title weighted A, the description B, the text C. */
  tsv: Buffer;
}

/**
 * The characters of a page's markdown the index keeps and reads words from: bounds that keep a
 * row's tsvector under Postgres's 1 MB and ts_headline's re-read of the text short.
 */
export const INDEXED_TEXT_CHARS = 200_000;
const MAX_TITLE = 1000;
const MAX_DESCRIPTION = 4000;

const IMAGE = /!\[([^\]]*)\]\((https?:\/\/[^)\s]+)/g;

/** The entry of a page's Document; undefined for one that has no http(s) address to list. */
export function searchEntry(document: { markdown?: unknown; metadata?: Record<string, unknown> }, storedUrl: string): SearchEntry | undefined {
  const meta = document.metadata ?? {};
  const url = text(meta.url) ?? text(meta.sourceURL) ?? storedUrl;
  const host = /^https?:\/\/(?:[^@/]*@)?([^/:?#]+)/i.exec(url)?.[1];
  if (!host) return undefined;
  const content = (text(document.markdown) ?? '').slice(0, INDEXED_TEXT_CHARS);
  const title = (text(meta.title) ?? text(meta.ogTitle) ?? '').slice(0, MAX_TITLE);
  const description = (text(meta.description) ?? text(meta.ogDescription) ?? '').slice(0, MAX_DESCRIPTION);
  return {
    url,
    host: host.toLowerCase(),
    title,
    description,
    lang: (text(meta.language) ?? '').split('-')[0]!.toLowerCase(),
    publishedAt: publishedAt(meta),
    isArticle: meta.ogType === 'article' || 'publishedTime' in meta,
    images: imagesOf(content),
    tsv: tsvectorBinary([
      { text: title, weight: 'A' },
      { text: description, weight: 'B' },
      { text: content, weight: 'C' },
    ]),
  };
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function publishedAt(meta: Record<string, unknown>): Date | null {
  const raw = text(meta.publishedTime) ?? text(meta.dcDate) ?? text(meta.dcTermsCreated);
  if (!raw) return null;
  const at = new Date(raw);
  return Number.isNaN(at.getTime()) ? null : at;
}

/** The markdown's images, each once, in the order they first appear. */
function imagesOf(markdown: string): { alt: string; src: string }[] {
  const seen = new Map<string, { alt: string; src: string }>();
  for (const [, alt, src] of markdown.matchAll(IMAGE)) {
    const key = `${alt}\n${src}`;
    if (!seen.has(key)) seen.set(key, { alt: alt!, src: src! });
  }
  return [...seen.values()];
}
