/**
 * POST /v1/scrape: the v1 request as the SDK's `firecrawl.v1.scrapeUrl` sends it, and the one
 * translation to v2 ScrapeOptions, so v1 runs through exactly the same workflow as v2.
 *
 * What differs from v2 (specification, v1 ScrapeOptions table and "Versioning"):
 * - formats are strings, with `screenshot@fullPage` and `extract` (v1's name for `json`); the
 *   options of json, extract and changeTracking come in `jsonOptions`, `extract`, `changeTrackingOptions`;
 * - `parsePDF` (default true) instead of `parsers`;
 * - defaults: `maxAge` 0 (no cache) and `skipTlsVerification` false; the rest match v2.
 */
import { z } from 'zod';
import {
  changeTrackingFormat,
  checkWaitForWithinTimeout,
  jsonFormat,
  requestMetaShape,
  scrapeOptionsSchema,
  scrapeOptionsShape,
  unsupportedFormatMessage,
  type ScrapeOptions,
} from '../../contracts/scrape-options.js';
import { targetUrlSchema } from './url.js';

const V1_FORMATS = [
  'markdown',
  'html',
  'rawHtml',
  'links',
  'screenshot',
  'screenshot@fullPage',
  'json',
  'extract',
  'changeTracking',
] as const;
type V1Format = (typeof V1_FORMATS)[number];
const V1_FORMAT_NAMES: ReadonlySet<string> = new Set(V1_FORMATS);

/** Options with the same name, type and default in v1 and v2. */
const sharedShape = z
  .object(scrapeOptionsShape)
  .omit({ formats: true, maxAge: true, skipTlsVerification: true, parsers: true }).shape;

export const scrapeV1OptionsShape = {
  ...sharedShape,
  formats: z
    .array(z.enum(V1_FORMATS, { error: (issue) => unsupportedFormatMessage(issue.input, V1_FORMAT_NAMES) }))
    .max(16).default(['markdown']).describe('Output formats'),
  maxAge: z.number().int().min(0).default(0).describe('Serve a cached copy younger than this (ms); 0 never'),
  skipTlsVerification: z.boolean().default(false).describe('Accept invalid TLS certificates'),
  parsePDF: z.boolean().default(true).describe('PDFs to markdown (1 credit a page); false returns base64 (1 credit)'),
  jsonOptions: jsonFormat.omit({ type: true }).optional().describe('Options of the json format'),
  extract: jsonFormat.omit({ type: true, checkPromptInjection: true }).optional().describe('Options of the extract format'),
  changeTrackingOptions: changeTrackingFormat.omit({ type: true }).optional().describe('Options of the changeTracking format'),
};

type ScrapeV1Options = z.infer<z.ZodObject<typeof scrapeV1OptionsShape>>;

/** An options object is refused without its format rather than ignored. */
const OPTIONS_FORMAT = { jsonOptions: 'json', extract: 'extract', changeTrackingOptions: 'changeTracking' } as const;

export const scrapeV1RequestSchema = z
  .strictObject({
    url: targetUrlSchema,
    ...scrapeV1OptionsShape,
    zeroDataRetention: z.boolean().default(false).describe('Keep nothing after the response is sent'),
    ...requestMetaShape,
  })
  .superRefine(checkWaitForWithinTimeout)
  .superRefine((body, ctx) => {
    for (const [option, format] of Object.entries(OPTIONS_FORMAT)) {
      if (body[option as keyof typeof OPTIONS_FORMAT] !== undefined && !body.formats.includes(format)) {
        ctx.addIssue({ code: 'custom', path: [option], message: `${option} requires the ${format} format` });
      }
    }
  });
export type ScrapeV1Request = z.infer<typeof scrapeV1RequestSchema>;

/**
 * v1 options as v2 ScrapeOptions. The result goes through the v2 schema, so v2's own rules (one
 * format of each kind, changeTracking needs markdown) apply to v1 requests too.
 */
export function scrapeOptionsFromV1(v1: ScrapeV1Options): ScrapeOptions {
  const { formats, parsePDF, jsonOptions, extract, changeTrackingOptions, ...shared } = v1;
  const objectFormat = (name: V1Format) => {
    switch (name) {
      case 'screenshot@fullPage':
        return { type: 'screenshot', fullPage: true };
      case 'json':
        return { type: 'json', ...jsonOptions };
      case 'extract':
        return { type: 'json', ...extract };
      case 'changeTracking':
        return { type: 'changeTracking', ...changeTrackingOptions };
      default:
        return { type: name };
    }
  };
  return scrapeOptionsSchema.parse({
    ...shared,
    formats: formats.map(objectFormat),
    parsers: parsePDF ? [{ type: 'pdf' }] : [],
  });
}
