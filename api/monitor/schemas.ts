/**
 * POST /v2/monitor and PATCH /v2/monitor/{id}: Firecrawl's MonitorCreateRequest and
 * MonitorUpdateRequest. Targets reuse the crawl and scrape option schemas, so a monitor accepts
 * exactly what a crawl or batch scrape would, with the same defaults and the same 400s.
 */
import { z } from 'zod';
import { MONITOR_NOTIFY } from '../../contracts/change-detection.js';
import { httpHeadersSchema } from '../../contracts/http-headers.js';
import { requestMetaShape } from '../../contracts/scrape-options.js';
import { crawlerOptionsShape, crawlScrapeOptionsSchema } from '../schemas/crawl.js';
import { targetUrlSchema } from '../schemas/url.js';

export const MONITOR_WEBHOOK_EVENTS = ['monitor.page', 'monitor.check.completed'] as const;

const scheduleSchema = z
  .strictObject({
    cron: z.string().min(1).max(200).optional().describe('A 5-field cron expression, e.g. "*/30 * * * *"'),
    text: z.string().min(1).max(200).optional().describe('Plain text, e.g. "every 30 minutes", "hourly", "daily at 9:00"'),
    timezone: z.string().min(1).max(64).default('UTC').describe('IANA timezone the schedule is read in'),
    adaptive: z
      .strictObject({
        minIntervalMs: z.number().int().min(300_000).describe('How often checks run: the shortest time between two checks of a URL (at least 5 minutes)'),
        maxIntervalMs: z.number().int().min(300_000).describe('The longest a URL goes unchecked (at most 30 days)'),
      })
      .optional()
      .describe("Trawl: instead of cron or text, check each scrape target's URL at the pace it changes at, within these bounds"),
  })
  .refine((s) => [s.cron, s.text, s.adaptive].filter((v) => v !== undefined).length === 1, { message: 'give exactly one of cron, text or adaptive' })
  .describe('When checks run; read back as cron. The minimum interval is 5 minutes');

const targetId = z.string().min(1).max(100).optional().describe('Stable id of the target; generated when absent');

const { webhook: _w, prompt: _p, zeroDataRetention: _z, ...crawlOptionsShape } = crawlerOptionsShape;

const notifySchema = z
  .enum(MONITOR_NOTIFY)
  .optional()
  .describe('Trawl: report only substantive changes (the default; noise as the changeTracking format’s noise says) or any change');

const scrapeTarget = z.strictObject({
  id: targetId,
  type: z.literal('scrape'),
  urls: z.array(targetUrlSchema).min(1).max(1000).describe('Pages to re-scrape on every check'),
  scrapeOptions: crawlScrapeOptionsSchema,
  notify: notifySchema,
});

const crawlTarget = z.strictObject({
  id: targetId,
  type: z.literal('crawl'),
  url: targetUrlSchema,
  crawlOptions: z.strictObject(crawlOptionsShape).default(() => z.strictObject(crawlOptionsShape).parse({})).describe('Crawl options, as POST /v2/crawl takes them'),
  scrapeOptions: crawlScrapeOptionsSchema,
  notify: notifySchema,
});

const searchTarget = z.strictObject({
  id: targetId,
  type: z.literal('search'),
  queries: z.array(z.string().min(1).max(500)).min(1).max(20),
  searchWindow: z.enum(['5m', '15m', '1h', '6h', '24h', '7d']).optional(),
  includeDomains: z.array(z.string().max(253)).max(100).optional(),
  excludeDomains: z.array(z.string().max(253)).max(100).optional(),
  maxResults: z.number().int().min(1).max(50).optional(),
});

export const monitorTargetSchema = z.discriminatedUnion('type', [scrapeTarget, crawlTarget, searchTarget]);
export type MonitorTarget = z.infer<typeof monitorTargetSchema>;

const monitorWebhookSchema = z
  .strictObject({
    url: z.url({ protocol: /^https?$/ }),
    headers: httpHeadersSchema.default({}),
    metadata: z.record(z.string(), z.unknown()).default({}),
    events: z.array(z.enum(MONITOR_WEBHOOK_EVENTS)).min(1).default([...MONITOR_WEBHOOK_EVENTS]),
  })
  .describe('Signed deliveries of monitor.page and monitor.check.completed');
export type MonitorWebhook = z.infer<typeof monitorWebhookSchema>;

const notificationSchema = z.strictObject({
  email: z
    .strictObject({
      enabled: z.boolean().default(true),
      recipients: z.array(z.email()).max(50).default([]),
      includeDiffs: z.boolean().default(false),
    })
    .optional(),
});

const goalSchema = z.string().min(1).max(2000).describe('What matters: with a model configured, each change is judged against it');

/** POST /v2/monitor */
export const monitorCreateRequestSchema = z.strictObject({
  name: z.string().min(1).max(256),
  schedule: scheduleSchema,
  targets: z.array(monitorTargetSchema).min(1).max(50),
  webhook: monitorWebhookSchema.optional(),
  notification: notificationSchema.optional(),
  retentionDays: z.number().int().min(1).max(365).default(30).describe('Days checks are kept (capped by RESULT_RETENTION_HOURS)'),
  goal: goalSchema.optional(),
  judgeEnabled: z.boolean().optional(),
  ...requestMetaShape,
});
export type MonitorCreateRequest = z.infer<typeof monitorCreateRequestSchema>;

/** PATCH /v2/monitor/{id}: any field; null clears the webhook, notification or goal. */
export const monitorUpdateRequestSchema = z.strictObject({
  name: z.string().min(1).max(256).optional(),
  status: z.enum(['active', 'paused']).optional(),
  schedule: scheduleSchema.optional(),
  targets: z.array(monitorTargetSchema).min(1).max(50).optional(),
  webhook: monitorWebhookSchema.nullable().optional(),
  notification: notificationSchema.nullable().optional(),
  retentionDays: z.number().int().min(1).max(365).optional(),
  goal: goalSchema.nullable().optional(),
  judgeEnabled: z.boolean().optional(),
  ...requestMetaShape,
});
export type MonitorUpdateRequest = z.infer<typeof monitorUpdateRequestSchema>;

const pageQuery = {
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  offset: z.coerce.number().int().min(0).default(0),
};
export const monitorListQuerySchema = z.object(pageQuery);
export const monitorChecksQuerySchema = z.object({
  ...pageQuery,
  status: z.enum(['queued', 'running', 'completed', 'failed', 'partial', 'skipped_overlap', 'skipped_no_credits']).optional(),
});
export const monitorCheckQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  skip: z.coerce.number().int().min(0).default(0),
  status: z.enum(['same', 'new', 'changed', 'removed', 'error']).optional(),
});
