/**
 * POST /v2/parse: the scrape options, less those that make no sense for a file, which are refused
 * with the messages Firecrawl's SDK gives for them (its `ensureValidParseOptions`).
 */
import { z } from 'zod';
import { formatsSchema, requestMetaShape, scrapeOptionsShape, type ScrapeOptions } from '../../contracts/scrape-options.js';

/** Firecrawl's limit for an uploaded file. */
export const PARSE_MAX_FILE_BYTES = 50 * 1024 * 1024;

/** A two-step upload's reference: 32 random bytes in base64url; anything else is none of ours and never reaches SQL. */
export const UPLOAD_REF = /^[A-Za-z0-9_-]{43}$/;

/** POST /v2/parse/upload-url */
export const parseUploadUrlSchema = z.strictObject({
  filename: z.string().min(1).max(512),
  contentType: z.string().min(1).max(255).optional(),
  declaredSizeBytes: z.number().int().positive().max(PARSE_MAX_FILE_BYTES).optional(),
});

const refused = (message: string) =>
  z
    .unknown()
    .refine((value) => value === undefined, { message })
    .transform(() => undefined)
    .optional();

const CACHE_MESSAGE = 'parse does not support cache/index options';
/** Formats that need a browser page or a page's history; a file has neither. */
const FILE_LESS_FORMATS = new Set(['screenshot', 'changeTracking', 'branding', 'audio', 'video']);

export const parseRequestSchema = z.strictObject({
  ...scrapeOptionsShape,
  formats: formatsSchema.superRefine((formats, ctx) => {
    for (const format of formats) {
      if (FILE_LESS_FORMATS.has(format.type)) ctx.addIssue({ code: 'custom', message: `parse does not support ${format.type} format` });
    }
  }),
  waitFor: refused('parse does not support waitFor'),
  actions: refused('parse does not support actions'),
  location: refused('parse does not support location overrides'),
  mobile: refused('parse does not support mobile rendering'),
  maxAge: refused(CACHE_MESSAGE),
  minAge: refused(CACHE_MESSAGE),
  storeInCache: refused(CACHE_MESSAGE),
  lockdown: refused(CACHE_MESSAGE),
  // An upload may be an image; Firecrawl's default parsers OCR it.
  parsers: scrapeOptionsShape.parsers.removeDefault().default([{ type: 'pdf' }, { type: 'image' }]),
  proxy: z.enum(['basic', 'auto'], { message: "parse only supports proxy values of 'basic' or 'auto'" }).default('basic'),
  zeroDataRetention: z.boolean().default(false).describe('Keep nothing after the response is sent'),
  ...requestMetaShape,
});
export type ParseRequest = z.infer<typeof parseRequestSchema>;

/** The scrape options a parse runs with: nothing rendered, nothing read from or written to the cache. */
export function parseScrapeOptions(request: ParseRequest): ScrapeOptions {
  const { origin: _origin, integration: _integration, zeroDataRetention: _zdr, waitFor: _w, actions: _a, location: _l, mobile: _m, minAge: _min, lockdown: _lock, ...options } = request;
  return { ...options, waitFor: 0, mobile: false, maxAge: 0, storeInCache: false, lockdown: false };
}
