/**
 * One page, start to finish: pick the engine, fetch, turn the response into a Firecrawl Document.
 * Storage and credits are the activity's business; this module does no database I/O.
 */
import type { ScrapeOptions } from '../api/schemas/scrape-options.js';
import { hasFormat } from '../api/schemas/scrape-options.js';
import { NonRetryablePageError } from '../lib/errors.js';
import type { BrowserPool } from '../worker/browser/browser-pool.js';
import { browserRequiredBy, needsJavaScript } from './engine-choice.js';
import { fetchWithBrowser } from './engines/browser.js';
import { fetchWithHttp } from './engines/http.js';
import { transformContent } from './html/content.js';
import { decodeBody } from './html/decode.js';
import type { FetchRequest, FetchedPage, TransformOptions } from './types.js';

export interface ScraperDeps {
  browser: BrowserPool;
  allowPrivateNetwork: boolean;
}

export interface ScrapeRequest {
  /** Absolute http(s) URL to fetch. */
  url: string;
  /** The URL exactly as the caller sent it; echoed as metadata.sourceURL. */
  sourceUrl: string;
  options: ScrapeOptions;
  scrapeId: string;
  deadline: number;
  signal: AbortSignal;
}

export type Document = Record<string, unknown> & { metadata: Record<string, unknown> };

export interface ScrapeOutcome {
  document: Document;
  statusCode: number;
  engine: FetchedPage['engine'];
  /** Discovered links (absolute), for crawls; present whenever the page was HTML. */
  links: string[];
}

export async function scrapeUrl(req: ScrapeRequest, deps: ScraperDeps): Promise<ScrapeOutcome> {
  const { options } = req;
  const target = parseTargetUrl(req.url);
  const base: FetchRequest = {
    url: target,
    headers: options.headers,
    location: options.location,
    mobile: options.mobile,
    network: { allowPrivateNetwork: deps.allowPrivateNetwork, skipTlsVerification: options.skipTlsVerification },
    signal: req.signal,
    deadline: req.deadline,
  };
  const renderInBrowser = () => {
    const shot = hasFormat(options, 'screenshot');
    return fetchWithBrowser(deps.browser, {
      ...base,
      waitForMs: options.waitFor,
      blockAds: options.blockAds,
      screenshot: shot && { fullPage: shot.fullPage, quality: shot.quality, viewport: shot.viewport },
    });
  };

  let page: FetchedPage;
  if (browserRequiredBy(options)) {
    page = await renderInBrowser();
  } else {
    page = await fetchWithHttp(base);
    if (isHtml(page.contentType) && page.body) {
      page = { ...page, html: decodeBody(page.body, page.headers['content-type']) };
      if (needsJavaScript(page.html!)) page = await renderInBrowser();
    }
  }

  const wantLinks = Boolean(hasFormat(options, 'links'));
  const transformed = transformContent(page, transformOptions(options));
  const document: Document = {
    ...(transformed.markdown !== undefined && { markdown: transformed.markdown }),
    ...(transformed.html !== undefined && { html: transformed.html }),
    ...(transformed.rawHtml !== undefined && { rawHtml: transformed.rawHtml }),
    ...(wantLinks && { links: transformed.links ?? [] }),
    ...(transformed.images !== undefined && { images: transformed.images }),
    ...(page.screenshot && {
      screenshot: `data:${page.screenshot.mimeType};base64,${page.screenshot.data.toString('base64')}`,
    }),
    ...(transformed.warning && { warning: transformed.warning }),
    metadata: {
      ...transformed.metadata,
      sourceURL: req.sourceUrl,
      url: page.url,
      statusCode: page.statusCode,
      contentType: page.headers['content-type'] ?? page.contentType,
      scrapeId: req.scrapeId,
      proxyUsed: 'basic',
    },
  };
  return { document, statusCode: page.statusCode, engine: page.engine, links: transformed.links ?? [] };
}

function transformOptions(options: ScrapeOptions): TransformOptions {
  return {
    onlyMainContent: options.onlyMainContent,
    includeTags: options.includeTags,
    excludeTags: options.excludeTags,
    removeBase64Images: options.removeBase64Images,
    want: {
      markdown: Boolean(hasFormat(options, 'markdown')),
      html: Boolean(hasFormat(options, 'html')),
      rawHtml: Boolean(hasFormat(options, 'rawHtml')),
      // Always extracted: crawls discover pages through them, and it is cheap next to markdown.
      links: true,
      images: Boolean(hasFormat(options, 'images')),
    },
  };
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
