import { z } from 'zod';
import { httpHeadersSchema } from './http-headers.js';

/** Events of page jobs (crawls, batches, extracts, searches). */
export const WEBHOOK_EVENTS = ['started', 'page', 'completed', 'failed'] as const;
/** Events of agent runs: `action` is one tool call. */
export const AGENT_WEBHOOK_EVENTS = ['started', 'action', 'completed', 'failed', 'cancelled'] as const;
export type WebhookEventKind = (typeof WEBHOOK_EVENTS)[number] | (typeof AGENT_WEBHOOK_EVENTS)[number];

function webhookSchemaOf<const E extends readonly [WebhookEventKind, ...WebhookEventKind[]]>(events: E) {
  const webhookObject = z.strictObject({
    url: z.url({ protocol: /^https?$/ }).describe('Where events are POSTed'),
    headers: httpHeadersSchema.default({}).describe('Extra headers sent with every event'),
    metadata: z.record(z.string(), z.unknown()).default({}).describe('Echoed in every payload'),
    events: z
      .array(
        z
          .string()
          // Newer clients send full names ("crawl.page", "agent.action"); both forms mean the same event.
          .transform((e) => e.replace(/^(crawl|batch_scrape|extract|agent)\./, ''))
          .pipe(z.enum(events)),
      )
      .default([...events])
      .describe('Which events to send'),
  });
  /** A URL string is shorthand for `{ url }`. */
  return z
    .union([z.url({ protocol: /^https?$/ }).transform((url) => webhookObject.parse({ url })), webhookObject])
    .describe('Webhook: a URL or {url, headers, metadata, events}');
}

export const webhookSchema = webhookSchemaOf(WEBHOOK_EVENTS);
export const agentWebhookSchema = webhookSchemaOf(AGENT_WEBHOOK_EVENTS);

export interface WebhookConfig {
  url: string;
  headers: Record<string, string>;
  metadata: Record<string, unknown>;
  events: WebhookEventKind[];
}
