/**
 * ScrapeOptions (v2): the one schema that validates, defaults and types every scrape option.
 * Crawl (`scrapeOptions`), batch scrape (flattened) and /v2/scrape all build on it.
 */
import { z } from 'zod';
import { selectorProblem } from '../lib/patterns/css.js';
import { browserProfileSchema } from './browser-profile.js';
import { globProblem } from '../lib/patterns/glob.js';
import { auditMetadataSchema, domainToolsSchema, toolDetailSchema } from './cloud-only.js';
import { NOISE_CATEGORIES } from './change-detection.js';
import { httpHeadersSchema } from './http-headers.js';

const MAX_TIMEOUT_MS = 300_000;

const viewport = z.strictObject({
  width: z.number().int().min(1).max(7680),
  height: z.number().int().min(1).max(4320),
});

export const screenshotFormat = z.strictObject({
  type: z.literal('screenshot'),
  fullPage: z.boolean().default(false).describe('Capture the whole scrollable page'),
  quality: z.number().int().min(1).max(100).optional().describe('JPEG quality; PNG when omitted'),
  viewport: viewport.optional().describe('Viewport size for the capture'),
});

export const jsonFormat = z.strictObject({
  type: z.literal('json'),
  prompt: z.string().max(10_000).optional(),
  schema: z.record(z.string(), z.unknown()).optional(),
  systemPrompt: z.string().max(10_000).optional(),
  checkPromptInjection: z.boolean().default(false),
});

export const changeTrackingFormat = z.strictObject({
  type: z.literal('changeTracking'),
  modes: z.array(z.enum(['git-diff', 'json', 'blocks'])).default([]).describe('git-diff and json as Firecrawl; blocks (Trawl): a block diff whose changes are marked noise or substantive'),
  noise: z
    .array(z.enum(NOISE_CATEGORIES))
    .max(NOISE_CATEGORIES.length)
    .optional()
    .describe('Trawl: what the blocks mode counts as noise; default dates, counters, tokens, ads (prices and moves when listed)'),
  schema: z.record(z.string(), z.unknown()).optional(),
  prompt: z.string().max(10_000).optional(),
  tag: z.string().max(256).nullable().default(null),
});

/** A CSS selector as every option takes one (includeTags, actions, attributes): bounded in length. */
const selector = z.string().min(1).max(1000);
/** A selector css-select runs in the worker's own process, so its cost is bounded (lib/patterns/css.ts). */
const treeSelector = selector.superRefine((value, ctx) => {
  const problem = selectorProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/** Values of an attribute on the elements a selector matches, in document order; no model. */
export const attributesFormat = z.strictObject({
  type: z.literal('attributes'),
  selectors: z
    .array(z.strictObject({ selector: treeSelector, attribute: z.string().min(1).max(256).describe('e.g. href, data-id; data-<name> is tried too') }))
    .min(1)
    .max(100),
});

/** A question about the page, answered by the model in `answer`. */
export const questionFormat = z.strictObject({ type: z.literal('question'), question: z.string().trim().min(1).max(10_000) });

/** The page's own lines that answer a query, picked by the model, in `highlights`. */
export const highlightsFormat = z.strictObject({ type: z.literal('highlights'), query: z.string().trim().min(1).max(10_000) });

/** Firecrawl's deprecated form of both: `freeform` answers like question, `directQuote` quotes like highlights. */
export const queryFormat = z.strictObject({
  type: z.literal('query'),
  prompt: z.string().trim().min(1).max(10_000),
  mode: z.enum(['freeform', 'directQuote']).default('freeform'),
});

const simpleFormatNames = ['markdown', 'html', 'rawHtml', 'rawBase64', 'links', 'images', 'summary', 'branding'] as const;
const simpleFormat = z.strictObject({ type: z.enum(simpleFormatNames) });

export const formatObject = z.discriminatedUnion('type', [
  simpleFormat,
  screenshotFormat,
  jsonFormat,
  changeTrackingFormat,
  attributesFormat,
  questionFormat,
  highlightsFormat,
  queryFormat,
]);
export type Format = z.infer<typeof formatObject>;
export type FormatName = Format['type'];

const FORMAT_NAMES: ReadonlySet<string> = new Set([
  ...simpleFormatNames,
  'screenshot',
  'json',
  'changeTracking',
  'attributes',
  'question',
  'highlights',
  'query',
]);

/**
 * The message for a format Trawl does not know (Firecrawl's `branding`, which the MCP
 * server sends), naming it; undefined for a known format, whose own error is more precise.
 * `input` is the format as sent: a name or an object with a `type`.
 */
export function unsupportedFormatMessage(input: unknown, known: ReadonlySet<string>): string | undefined {
  const name =
    typeof input === 'string'
      ? input
      : input && typeof input === 'object' && typeof (input as { type?: unknown }).type === 'string'
        ? (input as { type: string }).type
        : undefined;
  if (name === undefined || known.has(name)) return undefined;
  const shown = name.length > 64 ? `${name.slice(0, 64)}…` : name;
  return `Trawl does not support the ${JSON.stringify(shown)} format`;
}

/** String formats are shorthand for `{type}`; both forms give the same result. */
const formatInput = z.union(
  [z.enum([...simpleFormatNames, 'screenshot']).transform((type) => formatObject.parse({ type })), formatObject],
  { error: (issue) => unsupportedFormatMessage(issue.input, FORMAT_NAMES) },
);

export const formatsSchema = z
  .array(formatInput)
  .max(16)
  .default(['markdown'].map((type) => formatObject.parse({ type })))
  .superRefine((formats, ctx) => {
    const seen = new Set<string>();
    for (const f of formats) {
      if (seen.has(f.type)) {
        ctx.addIssue({ code: 'custom', message: `Format "${f.type}" is listed more than once` });
      }
      seen.add(f.type);
    }
    if (seen.has('changeTracking') && !seen.has('markdown')) {
      ctx.addIssue({ code: 'custom', message: 'The changeTracking format requires the markdown format' });
    }
    // Firecrawl's rule: the response's bytes are the whole answer.
    if (seen.has('rawBase64') && formats.length > 1) {
      ctx.addIssue({ code: 'custom', message: 'The rawBase64 format cannot be combined with other formats' });
    }
    // Both answer in `answer`: one would be dropped without a word.
    if (seen.has('question') && seen.has('query')) {
      ctx.addIssue({ code: 'custom', message: 'The question and query formats both answer in `answer`: use one' });
    }
  })
  .describe('Output formats, as names or objects');

export const actionSchema = z.discriminatedUnion('type', [
  z
    .strictObject({
      type: z.literal('wait'),
      milliseconds: z.number().int().min(1).max(60_000).optional(),
      selector: selector.optional(),
    })
    .refine((a) => (a.milliseconds === undefined) !== (a.selector === undefined), {
      message: 'wait takes exactly one of milliseconds or selector',
    }),
  z.strictObject({
    type: z.literal('screenshot'),
    fullPage: z.boolean().default(false),
    quality: z.number().int().min(1).max(100).optional(),
    viewport: viewport.optional(),
  }),
  z.strictObject({ type: z.literal('click'), selector, all: z.boolean().default(false) }),
  z.strictObject({ type: z.literal('write'), text: z.string().max(100_000) }),
  z.strictObject({ type: z.literal('press'), key: z.string().min(1).max(64) }),
  z.strictObject({
    type: z.literal('scroll'),
    direction: z.enum(['up', 'down']).default('down'),
    selector: selector.optional(),
  }),
  z.strictObject({ type: z.literal('scrape') }),
  z.strictObject({ type: z.literal('executeJavascript'), script: z.string().min(1).max(100_000) }),
  z.strictObject({
    type: z.literal('pdf'),
    format: z
      .enum(['A0', 'A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'Letter', 'Legal', 'Tabloid', 'Ledger'])
      .default('Letter'),
    landscape: z.boolean().default(false),
    scale: z.number().min(0.1).max(2).default(1),
  }),
]);
export type Action = z.infer<typeof actionSchema>;

export const locationSchema = z.strictObject({
  country: z
    .string()
    .transform((c) => c.toUpperCase())
    .pipe(z.string().regex(/^[A-Z]{2}$/, 'country must be an ISO 3166-1 alpha-2 code'))
    .default('US'),
  languages: z.array(z.string().min(2).max(35)).max(20).optional(),
});
export type Location = z.infer<typeof locationSchema>;

const pdfParser = z.union([
  z.literal('pdf').transform(() => ({ type: 'pdf' as const })),
  z.strictObject({
    type: z.literal('pdf'),
    /** `fast`: the text layer only; `auto`: OCR for pages without one; `ocr`: OCR for every page. */
    mode: z.enum(['fast', 'auto', 'ocr']).optional(),
    maxPages: z.number().int().min(1).max(10_000).optional(),
    /** `document.pages`: each page's markdown with its number. */
    pages: z.boolean().optional(),
    /** Firecrawl's deprecated name for `pages`. */
    pageMarkdown: z.boolean().optional(),
    /** `document.blocks`: each page's text blocks with their boxes and markdown spans (scraper/pdf/layout.ts). */
    blocks: z.boolean().optional(),
    /** Pages joined with `\n\n---\n\n<!-- page N -->\n\n` in the markdown. */
    pageMarkers: z.boolean().optional(),
  }),
]);

/** OCR of raster images (scraper/files/ocr.ts); takes no options, so `"image"` is the same. */
const imageParser = z.union([z.literal('image').transform(() => ({ type: 'image' as const })), z.strictObject({ type: z.literal('image') })]);

/** A domain or wildcard glob (`*.example.com`, `ads-*.net`): no protocol, path or port. */
const threatDomain = z
  .string()
  .max(253)
  .regex(/^[a-zA-Z0-9*]([a-zA-Z0-9*.-]*[a-zA-Z0-9*])?$/, 'a domain or wildcard glob, without protocol, path or port')
  .superRefine((glob, ctx) => {
    const problem = globProblem(glob);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

export const threatProtectionSchema = z.strictObject({
  mode: z.enum(['off', 'normal']).optional(),
  riskScoreThreshold: z.number().int().min(0).max(100).optional(),
  blacklist: z.array(threatDomain).max(1000).optional(),
  whitelist: z.array(threatDomain).max(1000).optional(),
  blockedTlds: z
    .array(z.string().max(63).regex(/^[a-z0-9-]+(\.[a-z0-9-]+)*$/, 'a lowercase TLD without a leading dot, e.g. zip or co.uk'))
    .max(1000)
    .optional(),
  failurePolicy: z.enum(['open', 'closed']).optional(),
});
export type ThreatProtectionOverride = z.infer<typeof threatProtectionSchema>;

/** Firecrawl's entity taxonomy; lib/patterns/pii.ts says which of them Trawl finds. */
export const PII_ENTITIES = ['PERSON', 'EMAIL', 'PHONE', 'LOCATION', 'FINANCIAL', 'SECRET'] as const;
export type PiiEntity = (typeof PII_ENTITIES)[number];

const redactPiiOptions = z.strictObject({
  mode: z.enum(['accurate', 'aggressive', 'fast']).default('accurate').describe("Firecrawl's choice of models; Trawl's redaction is one deterministic pass whatever the mode"),
  entities: z.array(z.enum(PII_ENTITIES)).max(PII_ENTITIES.length).optional().describe('Only these kinds; all when unset'),
  replaceStyle: z.enum(['tag', 'mask', 'remove']).default('tag').describe('<KIND>, asterisks of the same length, or nothing'),
});

/** `true` is every default; `false` and absence are no redaction, as in Firecrawl. */
export const redactPiiSchema = z
  .union([z.boolean(), redactPiiOptions])
  .optional()
  .transform((v) => (v === undefined || v === false ? undefined : v === true ? redactPiiOptions.parse({}) : v))
  .describe('Redact e-mail addresses, phone numbers, card numbers, IBANs and IP addresses from every text output (+4 credits)');
export type RedactPiiOptions = z.infer<typeof redactPiiOptions>;

/** Fields of ScrapeOptions, kept as a plain shape so crawl and batch schemas can spread it. */
export const scrapeOptionsShape = {
  formats: formatsSchema,
  onlyMainContent: z.boolean().default(true).describe('Drop navigation, headers, footers, sidebars and ads'),
  includeTags: z.array(treeSelector).max(100).optional().describe('CSS selectors to keep'),
  excludeTags: z.array(treeSelector).max(100).optional().describe('CSS selectors to drop'),
  // No schema default: lockdown's default is another (lib/page-cache-policy.ts decides both).
  maxAge: z.number().int().min(0).optional().describe('Serve a cached copy younger than this (ms); default 2 days, 2 years with lockdown'),
  minAge: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Answer only from the cache, with a copy at least this old (ms); 404 SCRAPE_NO_CACHED_DATA when there is none'),
  lockdown: z
    .boolean()
    .default(false)
    .describe('Answer only from the cache and contact nothing about the page; 404 SCRAPE_LOCKDOWN_CACHE_MISS when there is no copy'),
  storeInCache: z.boolean().default(true).describe('Write the result to the page cache'),
  headers: httpHeadersSchema.optional().describe('Headers sent with the page request'),
  waitFor: z.number().int().min(0).max(60_000).default(0).describe('Extra wait after load (ms)'),
  mobile: z.boolean().default(false).describe('Emulate a phone'),
  fastMode: z.boolean().default(false).describe('Plain HTTP only: never render a page in the browser to find its content'),
  skipTlsVerification: z.boolean().default(true).describe('Accept invalid TLS certificates'),
  timeout: z.number().int().min(1000).max(MAX_TIMEOUT_MS).default(30_000).describe('Deadline for the whole scrape (ms)'),
  // Firecrawl's default also has `image`; Trawl's scrapes OCR images only when asked, which keeps every page's cache key (lib/page-cache-key.ts) as it was. /v2/parse defaults to both.
  parsers: z
    .array(z.union([pdfParser, imageParser]))
    .max(4)
    .default([{ type: 'pdf' as const }])
    .describe('Document parsers: pdf (text per page), image (OCR); [] returns PDFs as base64'),
  actions: z.array(actionSchema).max(50).optional().describe('Browser actions run before capture'),
  location: locationSchema.optional().describe('Country and languages to emulate'),
  removeBase64Images: z.boolean().default(true).describe('Replace data: images in markdown with a placeholder'),
  blockAds: z.boolean().default(true).describe('Block ads, trackers and cookie banners'),
  proxy: z.enum(['basic', 'enhanced', 'auto', 'stealth']).default('basic').describe('Proxy pool'),
  threatProtection: threatProtectionSchema.optional(),
  redactPII: redactPiiSchema,
  onlyCleanContent: z.boolean().default(false).describe("A model pass over the markdown that takes out the boilerplate onlyMainContent left (needs a model)"),
  // Firecrawl cloud products: accepted, and named in the page's warning (contracts/cloud-only.ts).
  useMock: z.string().max(256).optional().describe("One of Firecrawl's recorded test responses; accepted, the page is fetched live"),
  domainTools: domainToolsSchema,
  toolDetail: toolDetailSchema,
  auditMetadata: auditMetadataSchema,
  profile: browserProfileSchema.optional(),
};

export const scrapeOptionsSchema = z.strictObject(scrapeOptionsShape).superRefine(checkWaitForWithinTimeout);
export type ScrapeOptions = z.infer<typeof scrapeOptionsSchema> & {
  /**
   * Set by the API from the job's own `zeroDataRetention`, never a client's scrape option: the
   * page writes no cache copy, search-index entry, change-tracking snapshot or stored media.
   */
  zeroDataRetention?: boolean;
  /**
   * Set by the API from Jina Reader's X-Proxy-Url, never a client's scrape option: the caller's
   * own proxy for every page, sealed (lib/caller-proxy.ts). Never stored with the job's row.
   */
  sealedProxy?: string;
};

export function checkWaitForWithinTimeout(
  opts: { waitFor: number; timeout: number },
  ctx: z.RefinementCtx,
): void {
  if (opts.waitFor > opts.timeout / 2) {
    ctx.addIssue({ code: 'custom', path: ['waitFor'], message: 'waitFor must not exceed half of timeout' });
  }
}

/** Fields every POST body may carry (the SDK always adds `origin`). */
export const requestMetaShape = {
  origin: z.string().max(256).optional(),
  integration: z.string().max(256).nullable().optional(),
};
