/**
 * One page, start to finish: pick the engine, fetch, turn the response into a Firecrawl Document.
 * Storage and credits are the activity's business; this module does no database I/O (screenshots
 * and PDFs are stored through the `publishMedia` the activity passes in).
 */
import { readsMarkdown, type PageOutputs } from '../contracts/page-outputs.js';
import type { ScrapeOptions } from '../contracts/scrape-options.js';
import { NonRetryablePageError } from '../lib/errors.js';
import type { BrowserPool } from '../browser/browser-pool.js';
import { documentActions } from './actions/action-results.js';
import { browserRequiredBy, needsJavaScript } from './engine-choice.js';
import { fetchWithBrowser } from './engines/browser.js';
import { fetchWithHttp } from './engines/http.js';
import { transformContentWith } from './html/content.js';
import { transformHtml } from './html/transform.js';
import { noAttributes } from './html/attributes.js';
import type { HtmlTransform } from './html/transform-pool.js';
import { decodeBody } from './html/decode.js';
import { inlineMedia, type MediaPublisher } from './media.js';
import { addressPolicyFor } from './net/address-policy.js';
import { vetCallerProxy } from './net/caller-proxy.js';
import { DIRECT_ROUTES, withProxyRoute, type ProxyRoute, type ProxyRoutes, type ProxyTier } from './net/proxy-routes.js';
import { isPdf } from './pdf/detect.js';
import type { PdfContent } from './pdf/pdf-content.js';
import { convertFile, KIND_TYPES, unsupported } from './files/convert.js';
import { hasZipMagic, imageType, sniffFile } from './files/sniff.js';
import { sha256Hex } from '../lib/hash.js';
import type { FetchRequest, FetchedPage, ProfileState, RedirectHop, TransformOptions } from './types.js';
import type { LinkText } from '../lib/crawl/relevance.js';

export interface ScraperDeps {
  browser: BrowserPool;
  allowPrivateNetwork: boolean;
  /** Upstream proxy pools for the `proxy` option. @default direct connections */
  proxies?: ProxyRoutes;
  /** Where HTML is converted (the worker's thread pool, html/transform-pool.ts). @default in this thread */
  transformHtml?: HtmlTransform;
}

export interface ScrapeRequest {
  /** Absolute http(s) URL to fetch. */
  url: string;
  /** The URL exactly as the caller sent it; echoed as metadata.sourceURL. */
  sourceUrl: string;
  options: ScrapeOptions;
  /** `options.formats`, resolved once by the caller (contracts/page-outputs.ts). */
  outputs: PageOutputs;
  scrapeId: string;
  deadline: number;
  signal: AbortSignal;
  /** Turns screenshot and PDF bytes into the Document's strings. @default data: URIs */
  publishMedia?: MediaPublisher;
  /** See FetchRequest.checkUrl. */
  checkUrl?: (url: string) => Promise<void>;
  /**
   * Validators of the copy the caller already has (a monitor's previous check): the plain-HTTP
   * fetch sends them as If-None-Match / If-Modified-Since, and a 304 comes back `notModified`
   * without any conversion. Never sent to the browser, which would render the empty 304.
   */
  conditional?: PageValidators;
  /** An uploaded file (POST /v2/parse): converted as it is, nothing is fetched. */
  file?: UploadedFile;
  /** `options.profile`, loaded by the caller: see BrowserFetchRequest.profile. */
  profile?: ProfileState;
  /** A query-directed crawl's page: the outcome carries `relevance`, the words it is scored on. */
  relevance?: boolean;
  /**
   * A caller's own proxy (Jina Reader's X-Proxy-Url), `http(s)://[user:pass@]host:port`: every
   * request of the page goes through it instead of the operator's pools, its address held to the
   * same policy as the page's (net/caller-proxy.ts). Reported as proxyUsed `basic`.
   */
  callerProxy?: string;
}

export interface UploadedFile {
  data: Buffer;
  filename: string;
}

/** A response's cache validators, for a later conditional request. */
export interface PageValidators {
  etag?: string;
  lastModified?: string;
}

export type Document = Record<string, unknown> & { metadata: Record<string, unknown> };

export interface ScrapeOutcome {
  document: Document;
  statusCode: number;
  engine: FetchedPage['engine'];
  /** Discovered links (absolute), for crawls; present whenever the page was HTML. */
  links: string[];
  /** Set when the page was a PDF: what it is billed for (lib/credits.ts). */
  pdf?: PdfContent['pdf'];
  /** The response's ETag and Last-Modified, when it sent them. */
  validators?: PageValidators;
  /** The server answered a conditional request with 304: the Document holds metadata only. */
  notModified?: boolean;
  /** What a query-directed crawl scores (ScrapeRequest.relevance): the page's text, and its links' texts. */
  relevance?: { text: string; links: LinkText[] };
}

export async function scrapeUrl(req: ScrapeRequest, deps: ScraperDeps): Promise<ScrapeOutcome> {
  const { page, proxyUsed } = req.file ? { page: uploadedPage(req.url, req.file), proxyUsed: 'basic' as const } : await fetchTarget(req, deps);
  return convertPage(req, deps, page, proxyUsed);
}

async function fetchTarget(req: ScrapeRequest, deps: ScraperDeps): Promise<{ page: FetchedPage; proxyUsed: ProxyTier }> {
  const { options, outputs } = req;
  const target = parseTargetUrl(req.url);
  const base: FetchRequest = {
    url: target,
    headers: options.headers,
    location: options.location,
    mobile: options.mobile,
    network: { allowPrivateNetwork: deps.allowPrivateNetwork, skipTlsVerification: options.skipTlsVerification },
    signal: req.signal,
    deadline: req.deadline,
    checkUrl: req.checkUrl,
  };
  // One attempt through one proxy route; `auto` may make a second through the enhanced pool.
  const fetchVia = async ({ proxy }: ProxyRoute): Promise<FetchedPage> => {
    const routed: FetchRequest = { ...base, network: { ...base.network, proxy, vetProxy: req.callerProxy !== undefined } };
    const renderInBrowser = () => {
      const shot = outputs.screenshot;
      return fetchWithBrowser(deps.browser, {
        ...routed,
        waitForMs: options.waitFor,
        blockAds: options.blockAds,
        screenshot: shot && { fullPage: shot.fullPage, quality: shot.quality, viewport: shot.viewport },
        branding: outputs.branding,
        actions: options.actions,
        profile: req.profile,
      });
    };
    if (browserRequiredBy(options, outputs)) return renderInBrowser();
    const fetched = await fetchWithHttp({ ...routed, headers: { ...routed.headers, ...conditionalHeaders(req.conditional) } });
    // rawBase64 wants the response's bytes, not a rendering of them.
    if (!isHtml(fetched.contentType) || !fetched.body || isPdf(fetched) || hasZipMagic(fetched.body) || outputs.rawBase64) return fetched;
    const page = { ...fetched, html: decodeBody(fetched.body, fetched.headers['content-type']) };
    // fastMode: what plain HTTP returns is the page, even a shell that needs JavaScript.
    return !options.fastMode && needsJavaScript(page.html) ? renderInBrowser() : page;
  };
  if (req.callerProxy !== undefined) {
    await vetCallerProxy(req.callerProxy, addressPolicyFor(deps.allowPrivateNetwork));
    const page = await fetchVia({ tier: 'basic', proxy: req.callerProxy });
    return { page, proxyUsed: 'basic' };
  }
  const { result: page, proxyUsed } = await withProxyRoute(
    deps.proxies ?? DIRECT_ROUTES,
    options.proxy,
    options.location?.country,
    fetchVia,
  );
  return { page, proxyUsed };
}

/** An upload as if a server had sent it, typed by its bytes (files/sniff.ts), never by its name. */
function uploadedPage(url: string, file: UploadedFile): FetchedPage {
  const kind = sniffFile(file.data, { contentType: '', filename: file.filename });
  if (!kind) throw unsupported(`${file.filename} (no parser for its content)`);
  const contentType = kind === 'image' ? imageType(file.data)! : KIND_TYPES[kind];
  return { engine: 'file', url, statusCode: 200, headers: { 'content-type': contentType }, contentType, body: file.data };
}

async function convertPage(req: ScrapeRequest, deps: ScraperDeps, page: FetchedPage, proxyUsed: ProxyTier): Promise<ScrapeOutcome> {
  const { options, outputs } = req;

  const validators = validatorsOf(page.headers);
  if (page.statusCode === 304 && req.conditional) {
    const metadata = { sourceURL: req.sourceUrl, url: page.url, statusCode: 304, scrapeId: req.scrapeId, proxyUsed, notModified: true };
    return { document: { metadata }, statusCode: 304, engine: page.engine, links: [], validators, notModified: true };
  }

  const transform = transformOptions(options, outputs, req.relevance === true);
  const raw = outputs.rawBase64 ? rawBase64Of(page) : undefined;
  const htmlTransform = deps.transformHtml ?? transformHtml;
  const file = raw
    ? undefined
    : await convertFile(page, { parsers: options.parsers, transform, html: htmlTransform, limits: req, filename: req.file?.filename });
  // rawBase64 of any response (an image, a PDF): only HTML has metadata and links to read.
  const transformed =
    file?.transformed ?? (raw && !isHtml(page.contentType) ? { metadata: {} } : await transformContentWith(page, transform, htmlTransform));
  const publish = req.publishMedia ?? inlineMedia;
  const screenshot = page.screenshot && (await publish(page.screenshot));
  // Firecrawl leaves `actions` out unless actions were requested.
  const actions = options.actions?.length ? await documentActions(page.actions, publish) : undefined;
  const document: Document = {
    ...(transformed.markdown !== undefined && { markdown: transformed.markdown }),
    ...(transformed.html !== undefined && { html: transformed.html }),
    ...(transformed.rawHtml !== undefined && { rawHtml: transformed.rawHtml }),
    ...(outputs.links && { links: transformed.links ?? [] }),
    ...(transformed.images !== undefined && { images: transformed.images }),
    // A PDF has no elements to select.
    ...(outputs.attributes && { attributes: transformed.attributes ?? noAttributes(outputs.attributes.selectors) }),
    ...(raw !== undefined && { rawBase64: raw }),
    ...(screenshot && { screenshot }),
    ...(page.branding?.profile && { branding: page.branding.profile }),
    ...(actions && { actions }),
    ...(transformed.pages && { pages: transformed.pages }),
    ...(transformed.blocks && { blocks: transformed.blocks }),
    ...((transformed.warning || page.branding?.warning) && { warning: [transformed.warning, page.branding?.warning].filter(Boolean).join(' ') }),
    metadata: {
      ...transformed.metadata,
      sourceURL: req.sourceUrl,
      url: page.url,
      statusCode: page.statusCode,
      contentType: page.headers['content-type'] ?? page.contentType,
      scrapeId: req.scrapeId,
      proxyUsed,
      ...provenanceOf(page),
    },
  };
  const relevance = req.relevance ? { text: transformed.markdown ?? '', links: transformed.linkTexts ?? [] } : undefined;
  return { document, statusCode: page.statusCode, engine: page.engine, links: transformed.links ?? [], pdf: file?.pdf, validators, ...(relevance && { relevance }) };
}

/**
 * Where the page came from, for telling unchanged content cheaply (a Trawl extension): the hash of
 * the bytes the server sent (or of the DOM the browser rendered) and the redirects on the way.
 * contentHash, of the markdown delivered, is added by the pipeline after its enrich steps.
 */
function provenanceOf(page: FetchedPage): { rawHash?: string; redirectChain?: RedirectHop[] } {
  const raw = page.body ?? page.html;
  return {
    ...(raw !== undefined && { rawHash: sha256Hex(raw) }),
    ...(page.redirectChain && { redirectChain: page.redirectChain }),
  };
}

function conditionalHeaders(validators: PageValidators | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (validators?.etag) headers['if-none-match'] = validators.etag;
  if (validators?.lastModified) headers['if-modified-since'] = validators.lastModified;
  return headers;
}

function validatorsOf(headers: Record<string, string>): PageValidators | undefined {
  const etag = headers.etag;
  const lastModified = headers['last-modified'];
  if (!etag && !lastModified) return undefined;
  return { ...(etag && { etag }), ...(lastModified && { lastModified }) };
}

function transformOptions(options: ScrapeOptions, outputs: PageOutputs, relevance: boolean): TransformOptions {
  return {
    onlyMainContent: options.onlyMainContent,
    includeTags: options.includeTags,
    excludeTags: options.excludeTags,
    removeBase64Images: options.removeBase64Images,
    want: {
      // The model formats and a query-directed crawl's score read the page as markdown even when it is not returned.
      markdown: outputs.markdown || readsMarkdown(outputs) || relevance,
      html: outputs.html,
      rawHtml: outputs.rawHtml,
      // Always extracted: crawls discover pages through them, and it is cheap next to markdown.
      links: true,
      images: outputs.images,
      attributes: outputs.attributes?.selectors,
      linkTexts: relevance,
    },
  };
}

/** The response as the server sent it (the browser engine has only its rendering of the page). */
function rawBase64Of(page: FetchedPage): string {
  return (page.body ?? Buffer.from(page.html ?? '', 'utf8')).toString('base64');
}

function isHtml(contentType: string): boolean {
  return contentType === 'text/html' || contentType === 'application/xhtml+xml' || contentType === '';
}

/** The API validated the URL already; this guards activities started by other workflows. */
function parseTargetUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new NonRetryablePageError('INVALID_URL', `Invalid URL: ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new NonRetryablePageError('INVALID_URL', `Unsupported protocol: ${url.protocol}`);
  }
  url.hash = '';
  return url.toString();
}
