/**
 * Contracts between the parts of the scraper: engines fetch a page, the HTML pipeline turns it
 * into a Document, and the scrape activity stores the Document and hands back its id.
 */
import type { StorageState } from '../browser/browser-pool.js';
import type { Action, Location } from '../contracts/scrape-options.js';
import type { LinkText } from '../lib/crawl/relevance.js';
import type { AttributeRequest, AttributeValues } from './html/attributes.js';
import type { BrandingProfile } from './engines/branding.js';

/** `file`: an uploaded file (POST /v2/parse), read from Postgres rather than fetched. */
export type EngineName = 'http' | 'browser' | 'file';

/** What an engine hands back: the response as the target sent it, after redirects. */
export interface FetchedPage {
  engine: EngineName;
  /** Final URL after redirects. */
  url: string;
  /** The redirects that led to `url`, in order; absent when there were none. */
  redirectChain?: RedirectHop[];
  statusCode: number;
  /** Response headers, lower-cased names. */
  headers: Record<string, string>;
  /** Media type without parameters, e.g. `text/html`; '' when the server sent none. */
  contentType: string;
  /** Raw body bytes (http engine, and any non-HTML response). */
  body?: Buffer;
  /** Rendered DOM serialised as HTML (browser engine). Already a string, so no decoding. */
  html?: string;
  /** Screenshot bytes when one was requested (browser engine). */
  screenshot?: CapturedMedia;
  /** The `branding` format's profile (browser engine), or why it could not be read. */
  branding?: { profile?: BrandingProfile; warning?: string };
  /** What the requested actions produced, in the order they ran (browser engine). */
  actions?: ActionOutputs;
}

/** One redirect: the URL that answered and its status (301, 302, 303, 307, 308). */
export interface RedirectHop {
  url: string;
  statusCode: number;
}

/** Image or PDF bytes a scrape captured; the Document carries them as a URL or a data: URI. */
export interface CapturedMedia {
  data: Buffer;
  mimeType: 'image/png' | 'image/jpeg' | 'application/pdf';
}

export interface ActionOutputs {
  screenshots: CapturedMedia[];
  scrapes: { url: string; html: string }[];
  /** `type` is the value's typeof in the page; `value` is its JSON form (absent for undefined). */
  javascriptReturns: { type: string; value?: unknown }[];
  pdfs: CapturedMedia[];
}

/** Network settings shared by both engines. */
export interface NetworkPolicy {
  /** Allow loopback, private, link-local and other non-public targets (local use and tests). */
  allowPrivateNetwork: boolean;
  /** Accept self-signed and otherwise invalid certificates. */
  skipTlsVerification: boolean;
  /** Upstream proxy URL every request of the fetch goes through; undefined connects directly. */
  proxy?: string;
  /**
   * `proxy` is a caller's own (X-Proxy-Url), not the operator's: its address must pass the same
   * policy as a target's (net/caller-proxy.ts).
   */
  vetProxy?: boolean;
}

export interface FetchRequest {
  url: string;
  headers?: Record<string, string>;
  location?: Location;
  mobile?: boolean;
  network: NetworkPolicy;
  /** Aborted when the scrape's single deadline passes or the activity is cancelled. */
  signal: AbortSignal;
  /** Absolute wall-clock deadline (epoch ms) for the whole scrape. */
  deadline: number;
  /**
   * Refuses a URL the page would move to (threat protection): called for every redirect hop and
   * every main-frame navigation after the first; throws to stop the scrape with its error.
   */
  checkUrl?: (url: string) => Promise<void>;
}

export interface BrowserFetchRequest extends FetchRequest {
  waitForMs: number;
  blockAds: boolean;
  screenshot?: { fullPage: boolean; quality?: number; viewport?: { width: number; height: number } };
  /** Run in order after load and settle, before the page is captured. */
  actions?: Action[];
  /** Read the page's design tokens (engines/branding.ts) once it is captured. */
  branding?: boolean;
  /** A browser profile: the context starts from its cookies and storage, and `save` gets them back after the capture. */
  profile?: ProfileState;
}

/** Playwright's storage state of a browser profile, and where to save it (activities/browser/profiles.ts). */
export interface ProfileState {
  state?: StorageState;
  save?: (state: StorageState) => Promise<void>;
}

/** Page metadata as Firecrawl returns it: known keys plus every other meta tag verbatim. */
export type PageMetadata = Record<string, string | string[] | number | boolean | undefined> & {
  title?: string;
  description?: string;
  language?: string;
  sourceURL: string;
  url: string;
  statusCode: number;
  contentType?: string;
};

export interface TransformOptions {
  onlyMainContent: boolean;
  includeTags?: string[];
  excludeTags?: string[];
  removeBase64Images: boolean;
  /** Which outputs to compute; others are skipped to save CPU. */
  want: {
    markdown: boolean;
    html: boolean;
    rawHtml: boolean;
    links: boolean;
    images: boolean;
    /** The `attributes` format's selectors (scraper/html/attributes.ts). */
    attributes?: readonly AttributeRequest[];
    /** Each link's text and surroundings, for a query-directed crawl's scores. */
    linkTexts?: boolean;
  };
}

/** The content part of a Document, before ids, credits and storage are added. */
export interface TransformedPage {
  markdown?: string;
  html?: string;
  rawHtml?: string;
  links?: string[];
  linkTexts?: LinkText[];
  images?: string[];
  attributes?: AttributeValues[];
  metadata: Omit<PageMetadata, 'sourceURL' | 'statusCode'>;
  warning?: string;
  /** A PDF's pages, when its parser asked for them (`parsers: [{ type: "pdf", pages: true }]`). */
  pages?: { pageNumber: number; markdown: string }[];
  /** A PDF's blocks per page, in Firecrawl's shape (`parsers: [{ type: "pdf", blocks: true }]`; pdf/pdf-content.ts). */
  blocks?: PdfPageBlocks[];
}

export interface PdfPageBlocks {
  pageNumber: number;
  /** The page box in PDF points; the boxes are fractions of it. */
  width: number | null;
  height: number | null;
  status: string;
  items: {
    /** `p<page>.b<reading order>`. */
    id: string;
    type: string;
    label: string | null;
    /** [x0, y0, x1, y1], 0–1 of the page from its top left; null for text read by OCR. */
    bbox: [number, number, number, number] | null;
    content: string;
    /** [start, end) of `content` in the document's markdown. */
    markdownSpan: [number, number] | null;
    readingOrder: number;
    source: string | null;
    confidence: { layout: number | null; ocr: number | null };
  }[];
}
