import { z } from 'zod';
import { httpHeadersSchema } from './http-headers.js';

export const WEBHOOK_EVENTS = ['started', 'page', 'completed', 'failed'] as const;
export type WebhookEventKind = (typeof WEBHOOK_EVENTS)[number];

const webhookObject = z.strictObject({
  url: z.url({ protocol: /^https?$/ }).describe('Where events are POSTed'),
  headers: httpHeadersSchema.default({}).describe('Extra headers sent with every event'),
  metadata: z.record(z.string(), z.unknown()).default({}).describe('Echoed in every payload'),
  events: z
    .array(
      z
        .string()
        // Newer clients send full names ("crawl.page"); both forms mean the same event.
        .transform((e) => e.replace(/^(crawl|batch_scrape)\./, ''))
        .pipe(z.enum(WEBHOOK_EVENTS)),
    )
    .default([...WEBHOOK_EVENTS])
    .describe('Which events to send'),
});

/** A URL string is shorthand for `{ url }`. */
export const webhookSchema = z
  .union([z.url({ protocol: /^https?$/ }).transform((url) => webhookObject.parse({ url })), webhookObject])
  .describe('Webhook: a URL or {url, headers, metadata, events}');
export type WebhookConfig = z.infer<typeof webhookObject>;
