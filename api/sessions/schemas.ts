/**
 * Request bodies of the browser session routes (api/sessions/routes.ts), with Firecrawl's limits:
 * code up to 100,000 UTF-8 bytes, a prompt up to 10,000 characters, a timeout of 1–300 s, a TTL
 * of 30–3,600 s and an inactivity TTL of 10–3,600 s.
 */
import { z } from 'zod';
import { browserProfileSchema } from '../../contracts/browser-profile.js';
import { requestMetaShape } from '../../contracts/scrape-options.js';

const code = z
  .string()
  .min(1)
  .refine((value) => Buffer.byteLength(value, 'utf8') <= 100_000, 'Code must not exceed 100,000 UTF-8 bytes.');
/** `python` is named so its refusal can say what to use instead. */
const language = z.enum(['node', 'bash', 'python']);
const timeout = z.number().int().min(1).max(300).default(30).describe('Seconds the execute may run');

export const browserCreateSchema = z.strictObject({
  ttl: z.number().int().min(30).max(3600).default(600).describe('Seconds the session lives at most'),
  activityTtl: z.number().int().min(10).max(3600).default(300).describe('Seconds without an execute before it ends'),
  streamWebView: z.boolean().default(true).describe('Accepted; Trawl serves no live view (see the README)'),
  recordSession: z.boolean().default(true).describe('Keep a screenshot of each execute for GET …/replay; false keeps none'),
  profile: browserProfileSchema.optional(),
  ...requestMetaShape,
});

export const browserExecuteSchema = z.strictObject({
  code,
  language: language.default('bash').describe('bash: agent-browser commands; node: JavaScript with a `page` object'),
  timeout,
  origin: requestMetaShape.origin,
});

export const interactSchema = z
  .strictObject({
    code: code.optional(),
    prompt: z.string().min(1).max(10_000).optional().describe('A task in plain words, carried out by the model with browser actions'),
    language: language.default('node'),
    timeout,
    existingSessionId: z.string().optional().describe('Accepted for compatibility; the scrape gets a session of its own'),
    ttl: z.number().int().min(30).max(3600).optional(),
    activityTtl: z.number().int().min(10).max(3600).optional(),
    ...requestMetaShape,
  })
  .refine((b) => (b.code === undefined) !== (b.prompt === undefined), { message: "Either 'code' or 'prompt' must be provided, not both." });

export const sessionListQuerySchema = z.strictObject({ status: z.enum(['active', 'destroyed']).optional() });
