/**
 * ScrapeOptions (v2): the one schema that validates, defaults and types every scrape option.
 * Crawl (`scrapeOptions`), batch scrape (flattened) and /v2/scrape all build on it.
 */
import { z } from 'zod';
import { selectorProblem } from '../lib/patterns/css.js';
import { globProblem } from '../lib/patterns/glob.js';
import { httpHeadersSchema } from './http-headers.js';

const MAX_TIMEOUT_MS = 300_000;
const TWO_DAYS_MS = 2 * 24 * 60 * 60 * 1000;

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
  modes: z.array(z.enum(['git-diff', 'json'])).default([]),
  schema: z.record(z.string(), z.unknown()).optional(),
  prompt: z.string().max(10_000).optional(),
  tag: z.string().max(256).nullable().default(null),
});

const simpleFormatNames = ['markdown', 'html', 'rawHtml', 'links', 'images', 'summary'] as const;
const simpleFormat = z.strictObject({ type: z.enum(simpleFormatNames) });

export const formatObject = z.discriminatedUnion('type', [
  simpleFormat,
  screenshotFormat,
  jsonFormat,
  changeTrackingFormat,
]);
export type Format = z.infer<typeof formatObject>;
export type FormatName = Format['type'];

const FORMAT_NAMES: ReadonlySet<string> = new Set([...simpleFormatNames, 'screenshot', 'json', 'changeTracking']);

/**
 * The message for a format Trawl does not know (Firecrawl's `branding`, `query`, which the MCP
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
  })
  .describe('Output formats, as names or objects');

const selector = z.string().min(1).max(1000);
/** A selector css-select runs in the worker's own process, so its cost is bounded (lib/patterns/css.ts). */
const treeSelector = selector.superRefine((value, ctx) => {
  const problem = selectorProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

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
  z.strictObject({ type: z.literal('pdf'), maxPages: z.number().int().min(1).max(10_000).optional() }),
]);

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

/** Fields of ScrapeOptions, kept as a plain shape so crawl and batch schemas can spread it. */
export const scrapeOptionsShape = {
  formats: formatsSchema,
  onlyMainContent: z.boolean().default(true).describe('Drop navigation, headers, footers, sidebars and ads'),
  includeTags: z.array(treeSelector).max(100).optional().describe('CSS selectors to keep'),
  excludeTags: z.array(treeSelector).max(100).optional().describe('CSS selectors to drop'),
  maxAge: z.number().int().min(0).default(TWO_DAYS_MS).describe('Serve a cached copy younger than this (ms)'),
  storeInCache: z.boolean().default(true).describe('Write the result to the page cache'),
  headers: httpHeadersSchema.optional().describe('Headers sent with the page request'),
  waitFor: z.number().int().min(0).max(60_000).default(0).describe('Extra wait after load (ms)'),
  mobile: z.boolean().default(false).describe('Emulate a phone'),
  skipTlsVerification: z.boolean().default(true).describe('Accept invalid TLS certificates'),
  timeout: z.number().int().min(1000).max(MAX_TIMEOUT_MS).default(30_000).describe('Deadline for the whole scrape (ms)'),
  parsers: z.array(pdfParser).max(4).default([{ type: 'pdf' as const }]).describe('Document parsers; [] returns PDFs as base64'),
  actions: z.array(actionSchema).max(50).optional().describe('Browser actions run before capture'),
  location: locationSchema.optional().describe('Country and languages to emulate'),
  removeBase64Images: z.boolean().default(true).describe('Replace data: images in markdown with a placeholder'),
  blockAds: z.boolean().default(true).describe('Block ads, trackers and cookie banners'),
  proxy: z.enum(['basic', 'enhanced', 'auto', 'stealth']).default('basic').describe('Proxy pool'),
  threatProtection: threatProtectionSchema.optional(),
};

export const scrapeOptionsSchema = z.strictObject(scrapeOptionsShape).superRefine(checkWaitForWithinTimeout);
export type ScrapeOptions = z.infer<typeof scrapeOptionsSchema>;

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
