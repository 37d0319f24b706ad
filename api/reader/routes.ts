/**
 * Jina Reader's routes, for its users and integrations (Perplexica and others) that want a
 * self-hosted endpoint: GET /r/<url> reads one page, GET /s/<query> searches and reads the top
 * five results. They run as /v2/scrape and /v2/search do, with the same keys, credits, rate
 * limits and SSRF guard; only the request (Jina's X- headers) and the answer differ. X-Proxy-Url
 * sends the pages through the caller's own proxy, whose address the SSRF guard vets too
 * (scraper/net/caller-proxy.ts); it travels sealed (lib/caller-proxy.ts). The answers:
 *
 * - `text/plain` (default): `Title:`, `URL Source:`, `Markdown Content:` blocks, as Jina writes
 *   them (numbered `[n]` for a search);
 * - `Accept: application/json`: `{code: 200, status: 20000, data}`;
 * - `Accept: text/event-stream`: the same data as one `data` event (Trawl answers when the page
 *   is read, so there are no partial events before it).
 */
import { Router, type Request, type Response } from 'express';
import { scrapeOptionsSchema } from '../../contracts/scrape-options.js';
import type { Document } from '../../scraper/scrape.js';
import { rememberedServerSecret } from '../../db/repositories/server-secrets.js';
import { CALLER_PROXY_SECRET, sealCallerProxy } from '../../lib/caller-proxy.js';
import type { AppDeps } from '../deps.js';
import { authOf } from '../middleware/auth.js';
import { httpError } from '../errors.js';
import { requireCredits } from '../middleware/credits.js';
import { findBodyProblem } from '../middleware/body-scan.js';
import { guard } from '../middleware/guard.js';
import { parseOrRefuse } from '../middleware/validate.js';
import { HEADER_OF_OPTION, readerHeadersSchema, scrapeInputOf, type ReaderHeaders } from './schemas.js';
import { searchRequestSchema } from '../search/schemas.js';
import { targetUrlSchema } from '../schemas/url.js';
import { runScrape } from '../routes/scrape.js';
import { performSearch } from '../search/routes.js';

/** Jina's /s/ answers its top five results. */
const SEARCH_RESULTS = 5;

export function readerRoutes(deps: AppDeps): Router {
  const router = Router();
  router.get('/r/*target', ...guard(deps, 'scrape', 'scrape'), requireCredits(deps), async (req, res) => {
    const headers = parseOrRefuse(readerHeadersSchema, req.headers);
    const url = targetOf(req);
    const options = { ...scrapeOptionsOf(headers), ...(await callerProxyOf(deps, res, headers)) };
    const document = (await runScrape(deps, req, res, { url, zeroDataRetention: false, options })) as Document;
    answer(req, res, [entryOf(document, headers, url)]);
  });
  router.get('/s/*query', ...guard(deps, 'search', 'search'), requireCredits(deps), async (req, res) => {
    const headers = parseOrRefuse(readerHeadersSchema, req.headers);
    const parsed = searchRequestSchema.safeParse({ query: queryOf(req), limit: SEARCH_RESULTS, scrapeOptions: scrapeInputOf(headers) });
    if (!parsed.success) throw refusal(parsed.error.issues.map((i) => ({ ...i, path: i.path[0] === 'scrapeOptions' ? i.path.slice(1) : i.path })));
    // The results' pages go through the caller's proxy; the search provider is the operator's.
    const scrapeOptions = { ...parsed.data.scrapeOptions!, ...(await callerProxyOf(deps, res, headers)) };
    const { data } = await performSearch(deps, req, res, { ...parsed.data, scrapeOptions }, true);
    const results = (data.web ?? []) as (Document & { url: string; title?: string; description?: string })[];
    answer(req, res, results.map((r) => entryOf(r, headers, r.url, r)));
  });
  return router;
}

/** The page's URL is the rest of the path, query string included (it is the page's, as in Jina). */
function targetOf(req: Request): string {
  let target = req.originalUrl.slice('/r/'.length);
  // Jina takes the URL encoded as one segment too.
  if (/^https?%3a/i.test(target)) target = decoded(target, 'url');
  // No scheme: Jina reads it as https (Firecrawl's http default is for its own routes).
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) target = `https://${target}`;
  if (!targetUrlSchema.safeParse(target).success) throw httpError('INVALID_URL', 'Invalid URL', { url: target.slice(0, 200) });
  return target;
}

function queryOf(req: Request): string {
  const raw = req.originalUrl.slice('/s/'.length).split('?')[0]!;
  // `+` is a space in Jina's examples (s.jina.ai/your+query).
  return decoded(raw.replace(/\+/g, ' '), 'query');
}

function decoded(value: string, what: 'url' | 'query'): string {
  let text: string;
  try {
    text = decodeURIComponent(value);
  } catch {
    throw httpError('BAD_REQUEST', `Bad Request: the ${what} is not valid percent-encoding`, { option: what });
  }
  // What a JSON body may not hold (a NUL, a lone surrogate) a path may not either: it is stored with its job.
  const problem = findBodyProblem({ [what]: text });
  if (problem) throw httpError('BAD_REQUEST', `Bad Request: ${problem.path}: ${problem.message}`, { option: what });
  return text;
}

/** X-Proxy-Url (already checked by the header schema), sealed for the workflow: see lib/caller-proxy.ts. */
async function callerProxyOf(deps: AppDeps, res: Response, headers: ReaderHeaders): Promise<{ sealedProxy?: string }> {
  const proxy = headers['x-proxy-url'];
  if (proxy === undefined) return {};
  const key = await rememberedServerSecret(deps.db, CALLER_PROXY_SECRET);
  return { sealedProxy: sealCallerProxy(key, authOf(res).teamId, proxy) };
}

function scrapeOptionsOf(headers: ReaderHeaders) {
  const parsed = scrapeOptionsSchema.safeParse(scrapeInputOf(headers));
  if (!parsed.success) throw refusal(parsed.error.issues);
  return parsed.data;
}

/** A refusal by the scrape schema, named by the header the option came from. */
function refusal(issues: { path: PropertyKey[]; message: string }[]) {
  const named = issues.map((i) => `${HEADER_OF_OPTION[String(i.path[0])] ?? i.path.join('.')}: ${i.message}`);
  return httpError('BAD_REQUEST', `Bad Request: ${named.join('; ')}`, issues);
}

interface Entry {
  title: string;
  url: string;
  description: string;
  /** Markdown, the page's HTML, or a screenshot's link, as X-Return-Format asked. */
  content: string;
  publishedTime?: string;
  links?: Record<string, string>;
  images?: Record<string, string>;
}

function entryOf(document: Document, headers: ReaderHeaders, url: string, listed?: { title?: string; description?: string }): Entry {
  const meta = document.metadata ?? {};
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const format = headers['x-return-format'];
  const content = format === 'html' ? document.rawHtml : format === 'screenshot' || format === 'pageshot' ? document.screenshot : document.markdown;
  const published = text(meta.publishedTime) ?? text(meta['article:published_time']);
  return {
    title: text(meta.title) ?? listed?.title ?? '',
    url: text(meta.url) ?? url,
    description: text(meta.description) ?? listed?.description ?? '',
    content: text(content) ?? '',
    ...(published && { publishedTime: published }),
    // Jina's summaries map a link's text (an image's alt) to its address.
    ...(headers['x-with-links-summary'] && { links: Object.fromEntries(strings(document.links).map((href) => [href, href])) }),
    ...(headers['x-with-images-summary'] && { images: Object.fromEntries(strings(document.images).map((src, i) => [`Image ${i + 1}`, src])) }),
  };
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

function answer(req: Request, res: Response, entries: Entry[]): void {
  const accept = req.get('accept') ?? '';
  const data = req.path.startsWith('/s/') ? entries : entries[0];
  if (accept.includes('application/json')) {
    res.json({ code: 200, status: 20000, data });
    return;
  }
  if (accept.includes('text/event-stream')) {
    res.type('text/event-stream').send(`event: data\ndata: ${JSON.stringify(data)}\n\n`);
    return;
  }
  const numbered = entries.length > 1 || req.path.startsWith('/s/');
  res.type('text/plain').send(entries.map((e, i) => plainText(e, numbered ? `[${i + 1}] ` : '')).join('\n\n'));
}

/** Jina's text answer: one labelled line per field, then the content and the summaries. */
function plainText(e: Entry, n: string): string {
  const contentLabel = e.content.startsWith('data:') || /^https?:\/\//.test(e.content) ? 'Screenshot' : 'Markdown Content';
  const lines = [`${n}Title: ${e.title}`, `${n}URL Source: ${e.url}`];
  if (e.publishedTime) lines.push(`${n}Published Time: ${e.publishedTime}`);
  if (n) lines.push(`${n}Description: ${e.description}`);
  lines.push(`${n}${contentLabel}:\n${e.content}`);
  if (e.links) lines.push(`${n}Links/Buttons:\n${Object.entries(e.links).map(([t, href]) => `- [${t}](${href})`).join('\n')}`);
  if (e.images) lines.push(`${n}Images:\n${Object.entries(e.images).map(([alt, src]) => `- ![${alt}](${src})`).join('\n')}`);
  return lines.join('\n\n');
}
