/**
 * A fast-check pass over every route of the real stack (#19): arbitrary and malformed bodies,
 * headers, ids and queries. Whatever a client sends, the answer is never a 5xx, and every
 * refusal is the envelope `{ success: false, error, code? }`.
 *
 * Targets are local: page URLs point at the crawl fixture site and webhooks at a local receiver,
 * so the requests that do pass validation run real (short) jobs without leaving the machine.
 * The numbers in the value palette are bounded so no generated scrape can wait for long.
 */
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCrawlSite, type CrawlSite } from '../helpers/crawl-site.js';
import { createKeyWithCli, runAdmin } from '../helpers/run-admin.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { e2eContext } from './context.js';

const { apiUrl, databaseUrl } = e2eContext();
const TEAM = 'route-fuzz-team';
let site: CrawlSite;
let hooks: WebhookReceiver;
let key: string;
/** Crawl and batch ids the fuzz started, cancelled afterwards so they stop using the worker. */
const started = new Set<string>();
/** Answers by status, so a test can show the fuzz got past validation as well as into it. */
const statuses = new Map<number, number>();

beforeAll(async () => {
  site = await startCrawlSite();
  hooks = await startWebhookReceiver();
  // Generous limits: a 429 or 402 would hide the validation the fuzz is about.
  await runAdmin(databaseUrl, [
    'teams', 'set', TEAM, '--credits', '100000000', '--scrape-rpm', '100000', '--crawl-rpm', '100000',
    '--map-rpm', '100000', '--crawl-status-rpm', '100000', '--concurrency', '50',
  ]);
  key = await createKeyWithCli(databaseUrl, TEAM);
});

afterAll(async () => {
  for (const id of started) {
    for (const path of [`/v2/crawl/${id}`, `/v2/batch/scrape/${id}`]) {
      await fetch(`${apiUrl}${path}`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } });
    }
  }
  await hooks?.close();
  await site?.close();
});

interface Sent {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/** Sends one request and checks the rule every answer obeys; returns the parsed body. */
async function send(req: Sent): Promise<unknown> {
  const res = await fetch(`${apiUrl}${req.path}`, {
    method: req.method,
    headers: req.headers,
    body: req.body === undefined ? undefined : typeof req.body === 'string' ? req.body : new Blob([new Uint8Array(req.body)]),
  });
  const text = await res.text();
  statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  const shown = `${req.method} ${req.path} ${JSON.stringify(req.headers)} ${String(req.body).slice(0, 300)} → ${res.status} ${text.slice(0, 300)}`;
  expect(res.status, shown).toBeLessThan(500);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`not JSON: ${shown}`);
  }
  if (res.status >= 400) {
    expect(body, shown).toMatchObject({ success: false, error: expect.any(String) });
  }
  const id = (body as { id?: unknown }).id;
  if (res.status === 200 && typeof id === 'string') started.add(id);
  return body;
}

// ---- values ------------------------------------------------------------------------------

const badChar = fc.constantFrom('\u0000', '\ud800', '\udfff', '\u202e', '\uffff', '%', '%ff', '\\', '"', '😀', '\n');
const nastyString = fc.oneof(
  fc.string({ maxLength: 16 }),
  fc.string({ unit: 'binary', maxLength: 16 }),
  fc.tuple(fc.string({ maxLength: 6 }), badChar, fc.string({ maxLength: 6 })).map(([a, b, c]) => a + b + c),
  fc.constantFrom('', ' ', 'http://', 'https://', '//x', 'javascript:alert(1)', 'file:///etc/passwd', 'http://[::1', 'x'.repeat(9000)),
);
/** Bounded: no generated timeout or waitFor lets a scrape run for long. */
const edgeNumber = fc.constantFrom(-1, 0, 1, 1.5, -0.5, 2, 10, 999, 1000, 3000, 300_001, 2 ** 31, 2 ** 53, 1e308, -1e308);
const leaf = fc.oneof(nastyString, edgeNumber, fc.boolean(), fc.constant(null));
const anyValue: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(nastyString, tie('v'), { maxKeys: 4 }),
  ),
})).v;
const deepValue = fc.integer({ min: 60, max: 1000 }).map((levels) => {
  let v: unknown = 'leaf';
  for (let i = 0; i < levels; i++) v = i % 2 ? [v] : { k: v };
  return v;
});

/** encodeURIComponent throws on a lone surrogate; the fuzz wants the rest of the string sent (pairs too are replaced: simpler, and ids need no emoji). */
const uriComponent = (s: string) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '\ufffd'));

const pageUrl = fc.oneof(
  fc.constantFrom('/docs/a', '/docs/b', '/', '/broken', '/image.png').map((p) => site.url(p)),
  nastyString.map((p) => site.url(`/${p}`)),
  nastyString,
);
const FORMAT_NAMES = [
  'markdown', 'html', 'rawHtml', 'rawBase64', 'links', 'images', 'summary', 'screenshot', 'json', 'changeTracking', 'attributes',
  'question', 'highlights', 'query', 'branding', 'screenshot@fullPage', 'extract',
];
const format = fc.oneof(
  fc.constantFrom(...FORMAT_NAMES),
  fc.record({ type: fc.oneof(fc.constantFrom(...FORMAT_NAMES), nastyString) }, { requiredKeys: ['type'] }).chain((f) =>
    fc.dictionary(fc.constantFrom('fullPage', 'quality', 'viewport', 'prompt', 'schema', 'modes', 'tag', 'question', 'query', 'mode', 'x'), anyValue, { maxKeys: 2 }).map((o) => ({ ...o, ...f })),
  ),
  // Attributes with selectors whose text is arbitrary: they reach the page's HTML.
  fc.record({ type: fc.constant('attributes'), selectors: fc.array(fc.record({ selector: nastyString, attribute: nastyString }), { maxLength: 2 }) }),
  anyValue,
);
const action = fc.record({
  type: fc.oneof(fc.constantFrom('wait', 'click', 'write', 'press', 'scroll', 'screenshot', 'scrape', 'executeJavascript', 'pdf'), nastyString),
  selector: leaf,
  text: leaf,
  milliseconds: fc.constantFrom(1, 10, 100, -1, 1e308),
  key: leaf,
});
/** Read when a value is generated: the receiver starts after this module is loaded. */
const hookUrl = fc.constant(null).map(() => hooks.url);
const webhook = fc.oneof(
  hookUrl,
  fc.record({ url: fc.oneof(hookUrl, nastyString), metadata: fc.oneof(anyValue, deepValue), headers: anyValue, events: anyValue }, { requiredKeys: ['url'] }),
  anyValue,
);

/** Values for the options the routes know, each sometimes valid and often not. */
const OPTION_VALUES: Record<string, fc.Arbitrary<unknown>> = {
  url: pageUrl,
  urls: fc.array(pageUrl, { maxLength: 3 }),
  formats: fc.oneof(fc.array(format, { maxLength: 3 }), anyValue),
  actions: fc.oneof(fc.array(action, { maxLength: 2 }), anyValue),
  webhook,
  scrapeOptions: fc.oneof(fc.record({ formats: fc.array(format, { maxLength: 2 }), includeTags: anyValue }), anyValue),
  crawlerOptions: anyValue,
  includePaths: fc.oneof(fc.array(nastyString, { maxLength: 2 }), anyValue),
  excludePaths: fc.oneof(fc.array(nastyString, { maxLength: 2 }), anyValue),
  headers: fc.oneof(fc.dictionary(nastyString, nastyString, { maxKeys: 2 }), anyValue),
  location: fc.oneof(fc.record({ country: nastyString, languages: anyValue }), anyValue),
  jsonOptions: fc.oneof(fc.record({ prompt: nastyString, schema: fc.oneof(anyValue, deepValue) }), anyValue),
  appendToId: fc.oneof(fc.uuid(), nastyString),
  includeTags: fc.array(nastyString, { maxLength: 2 }),
  excludeTags: fc.array(nastyString, { maxLength: 2 }),
  prompt: nastyString,
  search: nastyString,
  limit: edgeNumber,
  timeout: edgeNumber,
  waitFor: edgeNumber,
  maxAge: edgeNumber,
  query: nastyString,
  sources: fc.oneof(fc.array(fc.oneof(fc.constantFrom('web', 'news', 'images', 'alexandria'), fc.record({ type: nastyString, tbs: nastyString })), { maxLength: 3 }), anyValue),
  categories: fc.oneof(fc.array(fc.constantFrom('github', 'research', 'pdf', 'developer', 'code', 'x'), { maxLength: 3 }), anyValue),
  tbs: fc.oneof(fc.constantFrom('qdr:d', 'qdr:w2', 'cdr:1,cd_min:1/1/2020', 'cdr:1,cd_min:13/45/0'), nastyString),
  lang: nastyString,
  includeDomains: fc.oneof(fc.array(nastyString, { maxLength: 2 }), anyValue),
  excludeDomains: fc.oneof(fc.array(nastyString, { maxLength: 2 }), anyValue),
  schema: fc.oneof(anyValue, deepValue),
  showSources: anyValue,
  maxCredits: edgeNumber,
  model: fc.oneof(fc.constantFrom('spark-2', 'spark-1-mini'), nastyString),
  effort: fc.oneof(fc.constantFrom('low', 'high'), nastyString),
  threatProtection: fc.oneof(fc.record({ mode: nastyString, riskScoreThreshold: edgeNumber, blacklist: fc.array(nastyString, { maxLength: 2 }) }), anyValue),
  // The fields of SDK 4.42 and the MCP server (#34).
  redactPII: fc.oneof(fc.boolean(), fc.record({ mode: nastyString, entities: fc.oneof(fc.array(fc.constantFrom('EMAIL', 'PHONE', 'PERSON', 'NAME'), { maxLength: 3 }), anyValue), replaceStyle: nastyString }, { requiredKeys: [] }), anyValue),
  minAge: edgeNumber,
  lockdown: fc.oneof(fc.boolean(), anyValue),
  onlyCleanContent: fc.oneof(fc.boolean(), anyValue),
  toolDetail: fc.oneof(fc.constantFrom('compact', 'summary', 'full'), nastyString),
  domainTools: fc.oneof(fc.boolean(), anyValue),
  auditMetadata: fc.oneof(fc.record({ username: nastyString }), anyValue),
  highlights: fc.oneof(fc.boolean(), anyValue),
  safe: fc.oneof(fc.boolean(), anyValue),
  enterprise: fc.oneof(fc.array(fc.constantFrom('default', 'anon', 'zdr', 'x'), { maxLength: 3 }), anyValue),
  asyncScraping: fc.oneof(fc.boolean(), anyValue),
  robotsUserAgent: fc.oneof(fc.constantFrom('FriendlyBot', 'MyBot/1.0'), nastyString),
  maxDiscoveryDepth: edgeNumber,
  delay: edgeNumber,
  ignoreCache: fc.oneof(fc.boolean(), anyValue),
  mode: fc.oneof(fc.constantFrom('extract', 'chat'), nastyString),
};
const OTHER_KEYS = [
  'onlyMainContent', 'includeTags', 'excludeTags', 'waitFor', 'mobile', 'timeout', 'proxy', 'maxAge', 'parsers',
  'limit', 'maxDiscoveryDepth', 'sitemap', 'search', 'ignoreInvalidURLs', 'prompt', 'extract',
  'changeTrackingOptions', 'parsePDF', 'maxConcurrency', 'delay', 'zeroDataRetention', 'ignoreSitemap', 'sitemapOnly',
  'origin', 'integration', 'storeInCache', 'blockAds', 'skipTlsVerification', 'removeBase64Images', 'fastMode',
  'allowSubdomains', 'crawlEntireDomain', 'includeSubdomains', 'ignoreQueryParameters', 'useMock', 'threadId', 'regexOnFullURL',
  'allowExternalLinks', 'deduplicateSimilarURLs', '__proto__', 'constructor',
];
/**
 * Mostly the route's own options with plausible values (bodies are strict objects: one foreign
 * key and the schema refuses the whole body), so many bodies reach the handler and the database.
 */
function optionEntry(keys: readonly (keyof typeof OPTION_VALUES)[]) {
  return fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...keys).chain((k) => OPTION_VALUES[k]!.map((v) => [k, v] as const)) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...OTHER_KEYS, ...Object.keys(OPTION_VALUES)), anyValue) },
    { weight: 1, arbitrary: fc.tuple(nastyString, anyValue) },
  );
}

// ---- routes ------------------------------------------------------------------------------

const SCRAPE_KEYS = [
  'url', 'formats', 'actions', 'headers', 'location', 'includeTags', 'excludeTags', 'timeout', 'waitFor', 'maxAge',
  'redactPII', 'minAge', 'lockdown', 'onlyCleanContent', 'toolDetail', 'domainTools', 'auditMetadata',
];
const CRAWL_KEYS = ['url', 'webhook', 'includePaths', 'excludePaths', 'limit', 'prompt', 'robotsUserAgent'];
const BATCH_KEYS = ['urls', 'webhook', 'appendToId', ...SCRAPE_KEYS.filter((k) => k !== 'url')];
const MAP_KEYS = [
  'url', 'search', 'limit', 'timeout', 'headers', 'location', 'includePaths', 'excludePaths', 'maxDiscoveryDepth', 'robotsUserAgent',
  'delay', 'ignoreCache', 'auditMetadata',
];
const POST_ROUTES: { path: string; keys: string[]; base: () => Record<string, unknown> }[] = [
  { path: '/v2/scrape', keys: SCRAPE_KEYS, base: () => ({ url: site.url('/docs/a') }) },
  { path: '/v1/scrape', keys: [...SCRAPE_KEYS, 'jsonOptions'], base: () => ({ url: site.url('/docs/a') }) },
  { path: '/v2/crawl', keys: [...CRAWL_KEYS, 'scrapeOptions'], base: () => ({ url: site.url('/docs/a'), limit: 2 }) },
  { path: '/v1/crawl', keys: [...CRAWL_KEYS, 'crawlerOptions'], base: () => ({ url: site.url('/docs/a'), limit: 2 }) },
  { path: '/v2/batch/scrape', keys: BATCH_KEYS, base: () => ({ urls: [site.url('/docs/a')] }) },
  { path: '/v1/batch/scrape', keys: BATCH_KEYS, base: () => ({ urls: [site.url('/docs/a')] }) },
  { path: '/v2/map', keys: MAP_KEYS, base: () => ({ url: site.url('/') }) },
  { path: '/v1/map', keys: MAP_KEYS, base: () => ({ url: site.url('/') }) },
  ...['/v2/search', '/v1/search'].map((path) => ({
    path,
    keys: [
      'query', 'limit', 'sources', 'categories', 'tbs', 'lang', 'includeDomains', 'excludeDomains', 'timeout', 'scrapeOptions',
      'highlights', 'safe', 'enterprise', 'asyncScraping', 'toolDetail', 'domainTools',
    ],
    base: () => ({ query: 'docs' }),
  })),
  ...['/v2/extract', '/v1/extract'].map((path) => ({
    path,
    keys: ['urls', 'prompt', 'schema', 'limit', 'scrapeOptions', 'timeout', 'showSources', 'threatProtection'],
    base: () => ({ urls: [site.url('/docs/a')], prompt: 'x' }),
  })),
  { path: '/v2/agent', keys: ['prompt', 'urls', 'schema', 'maxCredits', 'model', 'effort', 'mode', 'auditMetadata'], base: () => ({ prompt: 'x' }) },
  { path: '/v2/crawl/params-preview', keys: ['url', 'prompt'], base: () => ({ url: site.url('/'), prompt: 'x' }) },
];

const ID_PREFIXES = ['/v1/crawl/', '/v2/crawl/', '/v1/batch/scrape/', '/v2/batch/scrape/', '/v2/scrape/', '/v1/scrape/', '/v2/media/', '/v1/extract/', '/v2/extract/', '/v2/agent/', '/v2/agent/threads/', '/v2/browser/', '/v2/interact/', '/v2/browser/profiles/'];
const ID_SUFFIXES = ['', '/errors', '/', '/trace', '/snapshots/x', '/replay', '/replay/0', '/interact'];
const GET_PATHS = [
  '/v2/agent', '/v2/team/threat-protection', '/openapi.json', '/v2/team/activity', '/v2/browser', '/v2/interact', '/v2/browser/profiles',
  '/v1/crawl/active', '/v2/crawl/active', '/v1/crawl/ongoing', '/v2/crawl/ongoing',
  ...['v1', 'v2'].flatMap((v) =>
    ['team/credit-usage', 'team/credit-usage/historical', 'team/token-usage', 'team/token-usage/historical',
      'team/queue-status', 'concurrency-check'].map((p) => `/${v}/${p}`),
  ),
];

const id = fc.oneof(
  fc.uuid(),
  fc.string({ maxLength: 12 }).map(uriComponent),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.array(fc.oneof(fc.constantFrom('%', '%f', '%ff', '%E0%A4%A', '%C0%AE', '%00', '%2F', '..', '.', 'active'), fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), maxLength: 3 })), { maxLength: 4 }).map((parts) => parts.join('')),
);
const query = fc.option(
  fc.dictionary(fc.constantFrom('skip', 'limit', 'x', 'skip[]', 'limit[a]', '%ff', 'cursor', 'endpoint', 'includeData'), fc.oneof(nastyString.map(uriComponent), fc.constantFrom('-1', '1e9', '0', '%ff', 'NaN')), { maxKeys: 3 })
    .map((q) => `?${Object.entries(q).map(([k, v]) => `${k}=${v}`).join('&')}`),
  { nil: '' },
);

const CONTENT_TYPES = [
  'application/json', 'application/json; charset=utf-8', 'application/json; charset=latin1', 'application/json; charset=koi8-r',
  'application/json; charset=utf-16', 'application/json; charset=nope', 'text/plain', 'application/x-www-form-urlencoded',
  'application/vnd.api+json', 'application/json;;', '*/*',
];
const ENCODINGS = [undefined, 'gzip', 'deflate', 'br', 'identity', 'x-unknown', 'gzip, gzip', 'compress', 'zstd', 'GZIP'];
/** Header values fetch can send: visible ASCII and spaces. */
const headerText = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 40 });
const authorization = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom('Bearer ', 'Bearer fc-nope', 'Basic abc', 'bearer', 'Bearer a b'),
  headerText,
);
const extraHeaders = fc.record(
  { 'x-idempotency-key': fc.oneof(fc.uuid(), headerText), accept: headerText, 'x-forwarded-host': headerText, 'x-forwarded-proto': headerText },
  { requiredKeys: [] },
);

const authed = (headers: Record<string, string | undefined> = {}): Record<string, string> => {
  const out: Record<string, string> = { authorization: `Bearer ${key}` };
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) delete out[k];
    else out[k] = v;
  }
  return out;
};

describe('route fuzz: no 5xx, always the envelope', () => {
  // The fuzz found this one as `url: '//x'`: a host that does not resolve came back as a 502.
  it.each(['/v1/scrape', '/v2/scrape'])('%s: a URL whose host does not resolve is the caller\'s 400', async (path) => {
    const body = await send({ method: 'POST', path, headers: authed({ 'content-type': 'application/json' }), body: JSON.stringify({ url: '//no-such-host.invalid', maxAge: 0 }) });
    expect(body).toMatchObject({ success: false, code: 'SCRAPE_DNS_RESOLUTION_ERROR' });
  });

  it('POST bodies: a valid body with options replaced by arbitrary values', async () => {
    statuses.clear();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...POST_ROUTES).chain((route) =>
          fc.tuple(fc.constant(route), fc.array(optionEntry(route.keys), { minLength: 1, maxLength: 3 })),
        ),
        extraHeaders,
        async ([route, entries], headers) => {
          const body = route.base();
          for (const [k, v] of entries) body[k] = v;
          await send({ method: 'POST', path: route.path, headers: authed({ 'content-type': 'application/json', ...headers }), body: JSON.stringify(body) });
        },
      ),
      { numRuns: 250 },
    );
    // Some generated bodies are valid and ran real jobs: the fuzz reached past validation.
    console.info('route fuzz, POST option answers by status:', Object.fromEntries(statuses));
    expect(statuses.get(200) ?? 0, JSON.stringify([...statuses])).toBeGreaterThan(0);
  });

  it('POST bodies: arbitrary JSON, raw text and bytes, with odd content types and encodings', async () => {
    const rawBody = fc.oneof(
      anyValue.map((v) => JSON.stringify(v) ?? 'null'),
      fc.string({ maxLength: 60 }),
      fc.uint8Array({ maxLength: 60 }).map((b) => Buffer.from(b)),
      anyValue.map((v) => gzipSync(JSON.stringify(v) ?? 'null')),
      fc.constantFrom('', '{', '[]', 'null', '"x"', '1', '{"url":', '\u0000', '{"__proto__":{"x":1}}', '{"url":"http://a"}x'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...POST_ROUTES.map((r) => r.path)),
        rawBody,
        fc.constantFrom(...CONTENT_TYPES),
        fc.constantFrom(...ENCODINGS),
        authorization,
        async (path, body, contentType, encoding, auth) => {
          const headers: Record<string, string> = { 'content-type': contentType };
          if (encoding !== undefined) headers['content-encoding'] = encoding;
          await send({ method: 'POST', path, headers: auth === undefined ? authed(headers) : { ...headers, authorization: auth }, body });
        },
      ),
      { numRuns: 250 },
    );
  });

  it('POST /v2/parse: arbitrary multipart parts, options, file bytes and boundaries', async () => {
    const PARSE_KEYS = ['formats', 'timeout', 'waitFor', 'actions', 'location', 'maxAge', 'includeTags', 'excludeTags', 'headers'];
    const part = fc.oneof(
      fc.record({ name: fc.constantFrom('options', 'file', 'formats', '__proto__', 'x y', ''), filename: fc.option(fc.constantFrom('a.pdf', 'b.docx', '', '../x', 'é.csv', 'nul\u0000.csv', '\ud800.pdf', 'tab\tname.md'), { nil: undefined }) }),
    );
    const fileBytes = fc.oneof(
      fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
      fc.constantFrom(Buffer.from('%PDF-1.7 broken'), Buffer.from('PK\u0003\u0004 not a zip'), Buffer.from('a,b\n1,2'), Buffer.from('<html><p>x</p></html>'), Buffer.alloc(0)),
    );
    const options = fc.oneof(
      fc.array(optionEntry(PARSE_KEYS), { maxLength: 3 }).map((entries) => JSON.stringify(Object.fromEntries(entries))),
      anyValue.map((v) => JSON.stringify(v) ?? 'null'),
      fc.string({ maxLength: 40 }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(part, { maxLength: 3 }), options, fileBytes, fc.constantFrom('b0undary', 'x', '"quoted"', ''), async (parts, opts, bytes, boundary) => {
        const pieces: Buffer[] = [];
        const all = [{ name: 'options', filename: undefined as string | undefined }, { name: 'file', filename: 'upload.bin' as string | undefined }, ...parts];
        for (const p of all) {
          const disposition = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
          pieces.push(Buffer.from(`--${boundary}\r\ncontent-disposition: ${disposition}\r\n\r\n`), p.filename !== undefined ? bytes : Buffer.from(opts), Buffer.from('\r\n'));
        }
        pieces.push(Buffer.from(`--${boundary}--\r\n`));
        await send({ method: 'POST', path: '/v2/parse', headers: authed({ 'content-type': `multipart/form-data; boundary=${boundary}` }), body: Buffer.concat(pieces) });
      }),
      { numRuns: 150 },
    );
  });

  it('the two-step parse upload: arbitrary upload-url bodies, PUTs and references', async () => {
    const started = (await send({ method: 'POST', path: '/v2/parse/upload-url', headers: authed({ 'content-type': 'application/json' }), body: JSON.stringify({ filename: 'a.csv' }) })) as { data: { uploadUrl: string } };
    const realId = new URL(started.data.uploadUrl).pathname.split('/').pop()!;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.record({ filename: fc.oneof(nastyString, anyValue), contentType: fc.oneof(nastyString, anyValue), declaredSizeBytes: fc.oneof(edgeNumber, anyValue) }, { requiredKeys: [] })
            .map((body) => ({ method: 'POST', path: '/v2/parse/upload-url', body: JSON.stringify(body), type: 'application/json' })),
          fc.tuple(fc.oneof(fc.constant(realId), id), fc.oneof(nastyString, fc.constant('')), fc.oneof(fc.string({ maxLength: 40 }), fc.constant('')), fc.constantFrom(...CONTENT_TYPES))
            .map(([uploadId, ref, body, type]) => ({ method: 'PUT', path: `/v2/parse/upload/${uploadId}?uploadRef=${uriComponent(ref)}`, body, type })),
          fc.oneof(nastyString, anyValue).map((ref) => ({ method: 'POST', path: '/v2/parse', body: JSON.stringify({ uploadRef: ref }), type: 'application/json' })),
        ),
        async (req) => {
          await send({ method: req.method, path: req.path, headers: authed({ 'content-type': req.type }), body: req.body });
        },
      ),
      { numRuns: 150 },
    );
  });

  it('a request line or headers over Node\'s 16 KB limit: 431 in the envelope, not a bare status line', async () => {
    // Found by the property below: Node's HTTP parser answers these before Express sees them.
    const longQuery = await send({ method: 'GET', path: `/v2/crawl/${'0'.repeat(8)}?x=${'x'.repeat(20_000)}`, headers: authed() });
    expect(longQuery).toMatchObject({ success: false, code: 'BAD_REQUEST', error: expect.stringContaining('16 KB') });
    expect(statuses.get(431)).toBeGreaterThanOrEqual(1);
    await send({ method: 'GET', path: '/v2/crawl/active', headers: { ...authed(), 'x-big': 'y'.repeat(20_000) } });
  });

  it("the dashboard: arbitrary cookies and form bodies on every page and form, never a 5xx", async () => {
    // The dashboard answers HTML, so only the status is checked; the cookie that does not decode
    // (`%E0%A4%A`) was a 500 on every route.
    const cookieValue = fc.oneof(headerText, fc.constantFrom('%E0%A4%A', '%', '%ff', '%00', 'x', ''));
    const cookie = fc.dictionary(fc.constantFrom('trawl_session', 'trawl_sign_in', 'other'), cookieValue, { maxKeys: 3 })
      .map((c) => Object.entries(c).map(([k, v]) => `${k}=${v}`).join('; '));
    const formValue = fc.oneof(nastyString.map(uriComponent), fc.constantFrom('%', '%E0%A4%A', 'true', '-1', '1e99', 'admin,scrape'));
    const form = fc.dictionary(fc.constantFrom('_csrf', 'key', 'name', 'scopes', 'credits', 'monitors', 'zdr', 'policy', 'webhook-secret', 'x'), formValue, { maxKeys: 4 })
      .map((f) => Object.entries(f).map(([k, v]) => `${k}=${v}`).join('&'));
    const teamId = fc.oneof(fc.uuid(), fc.constantFrom('x', '%ff', '..'));
    const path = fc.oneof(
      fc.constantFrom('/dashboard/', '/dashboard/sign-in', '/dashboard/sign-out', '/dashboard/teams', '/dashboard/jobs', '/dashboard/health'),
      teamId.map((t) => `/dashboard/teams/${t}`),
      fc.tuple(teamId, fc.constantFrom('keys', 'plan', 'threat-policy', 'keys/x/revoke')).map(([t, what]) => `/dashboard/teams/${t}/${what}`),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('GET', 'POST'), path, cookie, form, async (method, p, c, body) => {
        const res = await fetch(`${apiUrl}${p}`, {
          method,
          redirect: 'manual',
          headers: { cookie: c, ...(method === 'POST' && { 'content-type': 'application/x-www-form-urlencoded' }) },
          body: method === 'POST' ? body : undefined,
        });
        expect(res.status, `${method} ${p} cookie=${c} body=${body}`).toBeLessThan(500);
        await res.arrayBuffer();
      }),
      { numRuns: 200 },
    );
  });

  it("Jina Reader's GET /r/<url> and /s/<query>: hostile targets, queries and X- headers", async () => {
    // X-Timeout is always sent and bounded (or invalid): a wait for a selector that never appears
    // lasts as long as it allows.
    const readerHeader = fc.tuple(
      fc.dictionary(
        fc.constantFrom(
          'x-return-format', 'x-target-selector', 'x-remove-selector', 'x-wait-for-selector', 'x-no-cache',
          'x-retain-images', 'x-with-links-summary', 'x-with-images-summary', 'x-proxy-url',
        ),
        fc.oneof(headerText, fc.constantFrom('true', 'all', 'none', 'html', 'markdown', 'pageshot', '1', '0', 'a,b', 'div:has(p)', '*')),
        { maxKeys: 4 },
      ),
      fc.constantFrom('1', '2', 'soon', '-1', '0', '301', '1e9'),
    ).map(([headers, timeout]) => ({ ...headers, 'x-timeout': timeout }));
    const hostile = fc.constantFrom(
      'http://169.254.169.254/latest/meta-data/', 'file:///etc/passwd', 'javascript:alert(1)', 'http://[::1', '//x', 'http://',
      'http%3A%2F%2F169.254.169.254%2F', 'data:text/html,x', 'ftp://x', 'http://no-such-host.invalid/', '..%2F..%2F', '%2e%2e/admin',
      // Found by this property: a NUL in a query or an encoded URL reached Postgres as a 500.
      '%00', 'http%3A%2F%2Fa.example%2F%00', '%ED%A0%80',
    );
    const target = fc.oneof(
      fc.constantFrom('/docs/a', '/', '/image.png').map((p) => site.url(p)),
      hostile,
      nastyString.map(uriComponent),
      nastyString.map((v) => v.replace(/[\ud800-\udfff]/g, '')),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/r/', '/s/'), target, readerHeader, fc.constantFrom('application/json', 'text/event-stream', ''), async (route, t, headers, accept) => {
        const res = await fetch(`${apiUrl}${route}${t}`, { headers: authed({ ...headers, ...(accept && { accept }) }) });
        const text = await res.text();
        const shown = `GET ${route}${t} ${JSON.stringify(headers)} accept=${accept} → ${res.status} ${text.slice(0, 300)}`;
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        expect(res.status, shown).toBeLessThan(500);
        if (res.status >= 400) expect(JSON.parse(text), shown).toMatchObject({ success: false, error: expect.any(String) });
      }),
      { numRuns: 150 },
    );
  }, 240_000);

  it('ids, queries and methods on every read and cancel route', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.tuple(fc.constantFrom('GET', 'DELETE'), fc.constantFrom(...ID_PREFIXES), id, fc.constantFrom(...ID_SUFFIXES)).map(
            ([method, prefix, i, suffix]) => ({ method, path: `${prefix}${i}${suffix}` }),
          ),
          fc.tuple(fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH'), fc.constantFrom(...GET_PATHS)).map(([method, path]) => ({ method, path })),
        ),
        query,
        authorization,
        async (route, q, auth) => {
          await send({
            method: route.method,
            path: `${route.path}${q}`,
            headers: auth === undefined ? authed() : { authorization: auth },
          });
        },
      ),
      { numRuns: 300 },
    );
  });
});
