/**
 * Response shapes for the OpenAPI document. Requests are described by the same zod schemas that
 * validate them (api/schemas/); responses are built by handlers, so these describe what they send.
 * Loose objects: Firecrawl clients ignore fields they do not know, and so may readers of this.
 */
import { z } from 'zod';

export const errorEnvelope = z
  .object({
    success: z.literal(false),
    error: z.string().describe('What went wrong, for a person'),
    code: z.string().optional().describe('Stable machine-readable code, e.g. SCRAPE_TIMEOUT'),
    details: z.unknown().optional().describe('Field-level problems for a 400, or context for other errors'),
  })
  .describe('Every error, from every route, has this shape');

export const document = z
  .looseObject({
    markdown: z.string().optional(),
    html: z.string().optional(),
    rawHtml: z.string().optional(),
    links: z.array(z.string()).optional(),
    images: z.array(z.string()).optional(),
    screenshot: z.string().optional().describe('URL under /v2/media, or a data: URI'),
    summary: z.string().optional(),
    json: z.unknown().optional(),
    changeTracking: z.looseObject({}).optional(),
    actions: z.looseObject({}).optional(),
    warning: z.string().optional(),
    metadata: z.looseObject({
      sourceURL: z.string(),
      url: z.string().optional(),
      statusCode: z.number().int(),
      title: z.string().optional(),
      description: z.string().optional(),
      language: z.string().optional(),
      scrapeId: z.string().optional(),
      creditsUsed: z.number().optional(),
      cacheState: z.enum(['hit', 'miss']).optional(),
    }),
  })
  .describe('A scraped page (Firecrawl Document)');

export const scrapeResponse = z.object({ success: z.literal(true), data: document });

export const jobStarted = z.looseObject({
  success: z.literal(true),
  id: z.string().uuid(),
  url: z.string().describe('Where to poll the job'),
  invalidURLs: z.array(z.string()).optional(),
});

export const jobStatus = z.looseObject({
  success: z.literal(true),
  status: z.enum(['scraping', 'completed', 'failed', 'cancelled']),
  completed: z.number().int(),
  total: z.number().int(),
  creditsUsed: z.number(),
  expiresAt: z.string().describe('ISO time after which the job answers 404 JOB_EXPIRED'),
  next: z.string().optional().describe('The next page of documents, when there is one'),
  data: z.array(document),
  warning: z.string().optional(),
  stopReason: z
    .enum(['coverage_reached', 'saturated', 'no_relevant_pages', 'limit_reached'])
    .nullable()
    .optional()
    .describe('Trawl extension, a crawl with `query`: why it stopped; null while it runs'),
  coverage: z.number().optional().describe('Trawl extension, a crawl with `query`: share of the query its relevant pages cover, 0–1'),
});

export const jobErrors = z.object({
  errors: z.array(z.looseObject({ id: z.string(), timestamp: z.string(), url: z.string(), error: z.string(), code: z.string().optional() })),
  robotsBlocked: z.array(z.string()),
});

export const paramsPreview = z.object({
  success: z.literal(true),
  data: z.looseObject({ url: z.string() }).describe('The start URL and the crawl options the prompt implies'),
  warning: z.string().optional(),
});

export const extractStarted = z.looseObject({
  success: z.literal(true),
  id: z.string().uuid(),
  urlTrace: z.array(z.unknown()),
  invalidURLs: z.array(z.string()).optional(),
});

export const extractStatus = z.looseObject({
  success: z.boolean(),
  status: z.enum(['processing', 'completed', 'failed', 'cancelled']),
  data: z.unknown().describe('The merged answer once completed; [] before'),
  sources: z.record(z.string(), z.array(z.string())).optional().describe('With showSources: the pages each top-level field came from'),
  error: z.string().optional(),
  warning: z.string().optional(),
  expiresAt: z.string(),
  creditsUsed: z.number(),
  tokensUsed: z.number(),
});

export const searchResponse = z.looseObject({
  success: z.literal(true),
  data: z
    .looseObject({ web: z.array(z.looseObject({ url: z.string() })).optional(), news: z.array(z.looseObject({ url: z.string() })).optional(), images: z.array(z.looseObject({ imageUrl: z.string() })).optional() })
    .describe('Only the sources asked for (v1: a flat list of web results)'),
  creditsUsed: z.number().optional(),
  id: z.string().uuid().optional(),
  warning: z.string().optional(),
});

export const threatPolicy = z.object({ success: z.literal(true), data: z.looseObject({ enabled: z.boolean(), mode: z.string() }) });

export const metricsText = z.string().describe('Prometheus text exposition format');

export const parseUploadUrl = z.object({
  success: z.literal(true),
  data: z.object({
    uploadUrl: z.string(),
    uploadRef: z.string(),
    method: z.literal('PUT'),
    headers: z.record(z.string(), z.string()),
    expiresAt: z.string(),
    maxSizeBytes: z.number(),
  }),
});
export const uploaded = z.object({ success: z.literal(true) });

export const agentStarted = z.object({ success: z.literal(true), id: z.string().uuid() });
export const agentStatus = z.looseObject({
  success: z.literal(true),
  status: z.enum(['processing', 'completed', 'failed']),
  data: z.unknown().optional().describe('The result, once completed'),
  error: z.string().optional(),
  model: z.literal('spark-2'),
  expiresAt: z.string(),
  creditsUsed: z.number(),
});
export const agentList = z.object({ success: z.literal(true), agents: z.array(z.looseObject({ id: z.string(), status: z.string() })), next: z.string().optional() });
export const agentTrace = z.object({ success: z.literal(true), id: z.string(), events: z.array(z.looseObject({ type: z.string() })), creditsUsed: z.number() });
export const agentSnapshot = z.object({ success: z.literal(true), id: z.string(), snapshotId: z.string(), snapshot: z.string() });
export const agentCancelled = z.object({ success: z.literal(true) });

export const cancelled = z.looseObject({ success: z.literal(true), status: z.literal('cancelled') });

export const mapResponse = z.looseObject({
  success: z.literal(true),
  links: z.array(z.union([z.string(), z.looseObject({ url: z.string(), title: z.string().optional(), description: z.string().optional() })])),
  warning: z.string().optional(),
});

export const activeCrawls = z.object({
  success: z.literal(true),
  crawls: z.array(z.looseObject({ id: z.string(), teamId: z.string(), url: z.string(), status: z.string(), options: z.looseObject({}) })),
});

export const usage = z.looseObject({ success: z.literal(true), data: z.looseObject({}) });
export const agentThread = z.looseObject({ success: z.literal(true), thread: z.looseObject({ id: z.uuid(), status: z.enum(['idle', 'running']), runs: z.array(z.looseObject({})) }) });
/** A Jina-style answer as text; its JSON form is `{code, status, data}`. */
export const readerText = z.string();
export const teamActivity = z.strictObject({
  success: z.literal(true),
  data: z.array(z.strictObject({ id: z.uuid(), endpoint: z.string(), api_version: z.enum(['v1', 'v2']), created_at: z.string(), target: z.string().nullable() })),
  cursor: z.string().nullable(),
  has_more: z.boolean(),
});

export const health = z.looseObject({
  success: z.boolean(),
  status: z.enum(['ok', 'unavailable']),
  checks: z.record(z.string(), z.looseObject({ ok: z.boolean(), error: z.string().optional() })),
});

const monitorSummary = z.object({ totalPages: z.number(), same: z.number(), changed: z.number(), new: z.number(), removed: z.number(), error: z.number() });
const monitorObject = z.looseObject({
  id: z.string(),
  name: z.string(),
  status: z.enum(['active', 'paused']),
  schedule: z.looseObject({ cron: z.string(), timezone: z.string() }),
  nextRunAt: z.string().nullable(),
  targets: z.array(z.looseObject({ id: z.string(), type: z.string() })),
  estimatedCreditsPerMonth: z.number(),
  lastCheckSummary: monitorSummary.nullable(),
  judgeEnabled: z.boolean(),
});
const monitorCheck = z.looseObject({
  id: z.string(),
  monitorId: z.string(),
  status: z.enum(['queued', 'running', 'completed', 'failed', 'partial', 'skipped_overlap', 'skipped_no_credits']),
  trigger: z.enum(['scheduled', 'manual']),
  summary: monitorSummary,
});
const pagination = z.object({ limit: z.number(), offset: z.number(), hasMore: z.boolean() });
export const monitorResponse = z.object({ success: z.literal(true), data: monitorObject });
export const monitorList = z.object({ success: z.literal(true), data: z.array(monitorObject), pagination });
export const monitorDeleted = z.object({ success: z.literal(true), data: z.object({ id: z.string(), status: z.literal('deleted') }) });
export const monitorCheckResponse = z.object({ success: z.literal(true), data: monitorCheck });
export const monitorCheckList = z.object({ success: z.literal(true), data: z.array(monitorCheck), pagination });
export const monitorCheckDetail = z.looseObject({
  success: z.literal(true),
  data: monitorCheck.extend({
    pages: z.array(z.looseObject({ id: z.string(), targetId: z.string(), url: z.string(), status: z.enum(['same', 'new', 'changed', 'removed', 'error']) })),
    next: z.string().nullable(),
  }),
});

export const browserCreated = z.object({ success: z.literal(true), id: z.string().uuid(), expiresAt: z.string() });
export const browserExecuted = z.looseObject({
  success: z.boolean(),
  stdout: z.string(),
  stderr: z.string(),
  result: z.string().optional().describe("The code's return value, as JSON"),
  output: z.string().optional().describe("A prompt's answer"),
  exitCode: z.number(),
  killed: z.boolean(),
  truncated: z.boolean().optional(),
  error: z.string().optional(),
});
export const browserSession = z.looseObject({ id: z.string(), status: z.enum(['active', 'destroyed', 'lost']), createdAt: z.string(), lastActivity: z.string(), expiresAt: z.string() });
export const browserSessionRead = browserSession.extend({ success: z.literal(true) });
export const browserList = z.object({ success: z.literal(true), sessions: z.array(browserSession) });
export const browserDeleted = z.looseObject({ success: z.literal(true), sessionDurationMs: z.number(), creditsBilled: z.number() });
export const browserReplay = z.object({
  success: z.literal(true),
  pages: z.array(z.object({ pageId: z.string(), url: z.string(), pageUrl: z.string(), action: z.string(), startTimeMs: z.number(), endTimeMs: z.number() })),
  pageCount: z.number(),
});
export const browserProfiles = z.object({ success: z.literal(true), profiles: z.array(z.object({ name: z.string(), updatedAt: z.string() })) });
