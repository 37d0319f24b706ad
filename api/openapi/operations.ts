/**
 * Every route the API serves, as OpenAPI operations. Request bodies are the zod schemas that
 * validate them, so the document cannot drift from validation; test/integration/api/openapi.test.ts fails
 * when a route has no entry here or an entry has no route.
 */
import type { z } from 'zod';
import { batchScrapeRequestSchema } from '../schemas/batch-scrape.js';
import { crawlRequestSchema, crawlRequestV1Schema } from '../schemas/crawl.js';
import { crawlParamsPreviewRequestSchema } from '../schemas/crawl-params-preview.js';
import { agentRequestSchema } from '../agent/schemas.js';
import { extractRequestSchema } from '../schemas/extract.js';
import { searchRequestSchema } from '../search/schemas.js';
import { threatPolicySchema } from '../../contracts/threat-policy.js';
import { mapRequestSchema, mapRequestV1Schema } from '../schemas/map.js';
import { scrapeRequestSchema } from '../schemas/scrape.js';
import { scrapeV1RequestSchema } from '../schemas/scrape-v1.js';
import { parseRequestSchema, parseUploadUrlSchema } from '../schemas/parse.js';
import { monitorCheckQuerySchema, monitorChecksQuerySchema, monitorCreateRequestSchema, monitorListQuerySchema, monitorUpdateRequestSchema } from '../monitor/schemas.js';
import { statusQuerySchema } from '../routes/job-status.js';
import { teamActivityQuerySchema } from '../schemas/team-activity.js';
import { readerHeadersSchema } from '../reader/schemas.js';
import { threadQuerySchema } from '../agent/threads.js';
import { browserCreateSchema, browserExecuteSchema, interactSchema, sessionListQuerySchema } from '../sessions/schemas.js';
import * as r from './responses.js';

export interface Operation {
  method: 'get' | 'post' | 'delete' | 'put' | 'patch';
  /** OpenAPI path, `{id}` for parameters. */
  path: string;
  tag: string;
  summary: string;
  /** False for the few routes anyone may call. */
  auth: boolean;
  body?: z.ZodType;
  query?: z.ZodObject;
  /** Request headers the route reads (Jina Reader's X- headers). */
  headers?: z.ZodObject;
  response: z.ZodType;
  /** Error statuses the route can answer, besides 401/403/429 for authenticated routes. */
  errors: number[];
  /** A body sent as multipart/form-data (a file upload) rather than JSON. */
  consumes?: 'multipart/form-data';
  /** Content type of a non-JSON success (media files). */
  produces?: string;
}

const VERSIONS = ['v1', 'v2'] as const;
const both = (build: (v: (typeof VERSIONS)[number]) => Operation): Operation[] => VERSIONS.map(build);

export const operations: Operation[] = [
  { method: 'get', path: '/metrics', tag: 'Service', summary: 'Prometheus metrics (bearer METRICS_TOKEN when set)', auth: false, response: r.metricsText, errors: [401], produces: 'text/plain' },
  { method: 'get', path: '/health', tag: 'Service', summary: 'Health of the API, Postgres, Temporal and the workers', auth: false, response: r.health, errors: [503] },
  { method: 'post', path: '/v2/scrape', tag: 'Scrape', summary: 'Scrape one URL', auth: true, body: scrapeRequestSchema, response: r.scrapeResponse, errors: [400, 402, 408, 500, 502] },
  ...both((v) => ({ method: 'get', path: `/${v}/scrape/{id}`, tag: 'Scrape', summary: 'Read a finished scrape', auth: true, response: r.scrapeResponse, errors: [400, 404] })),
  { method: 'post', path: '/v2/parse', tag: 'Parse', summary: 'Parse an uploaded file (PDF, DOCX, XLSX, PPTX, HTML, CSV, text) into a Document', auth: true, consumes: 'multipart/form-data', body: parseRequestSchema, response: r.scrapeResponse, errors: [400, 402, 408, 413, 415, 422] },
  { method: 'post', path: '/v2/parse/upload-url', tag: 'Parse', summary: 'Start a two-step upload: a reference and the URL to PUT the file to (10 minutes)', auth: true, body: parseUploadUrlSchema, response: r.parseUploadUrl, errors: [400] },
  { method: 'put', path: '/v2/parse/upload/{uploadId}', tag: 'Parse', summary: "The file's bytes for a two-step upload (the uploadRef query parameter is the credential); then POST /v2/parse with {uploadRef}", auth: false, response: r.uploaded, errors: [400, 404, 413] },
  { method: 'post', path: '/v1/scrape', tag: 'Scrape', summary: 'Scrape one URL (v1 shape)', auth: true, body: scrapeV1RequestSchema, response: r.scrapeResponse, errors: [400, 402, 408, 500, 502] },
  { method: 'post', path: '/v2/crawl', tag: 'Crawl', summary: 'Start a crawl', auth: true, body: crawlRequestSchema, response: r.jobStarted, errors: [400, 402, 409, 503] },
  { method: 'post', path: '/v2/crawl/params-preview', tag: 'Crawl', summary: 'The crawl options a natural-language prompt implies (needs a model)', auth: true, body: crawlParamsPreviewRequestSchema, response: r.paramsPreview, errors: [400, 502, 503] },
  { method: 'post', path: '/v1/crawl', tag: 'Crawl', summary: 'Start a crawl (v1 option names)', auth: true, body: crawlRequestV1Schema, response: r.jobStarted, errors: [400, 402, 409, 503] },
  ...both((v) => ({ method: 'get', path: `/${v}/crawl/active`, tag: 'Crawl', summary: 'List running crawls', auth: true, response: r.activeCrawls, errors: [] })),
  ...both((v) => ({ method: 'get', path: `/${v}/crawl/ongoing`, tag: 'Crawl', summary: 'List running crawls (alias of active)', auth: true, response: r.activeCrawls, errors: [] })),
  ...both((v) => ({ method: 'get', path: `/${v}/crawl/{id}`, tag: 'Crawl', summary: v === 'v1' ? 'Crawl (or batch scrape) status and documents' : 'Crawl status and documents', auth: true, query: statusQuerySchema, response: r.jobStatus, errors: [400, 404] })),
  ...both((v) => ({ method: 'get', path: `/${v}/crawl/{id}/errors`, tag: 'Crawl', summary: 'Failed pages and robots-blocked URLs of a crawl', auth: true, response: r.jobErrors, errors: [400, 404] })),
  ...both((v) => ({ method: 'delete', path: `/${v}/crawl/{id}`, tag: 'Crawl', summary: 'Cancel a crawl', auth: true, response: r.cancelled, errors: [400, 404, 409] })),
  ...both((v) => ({ method: 'post', path: `/${v}/batch/scrape`, tag: 'Batch scrape', summary: 'Start a batch scrape, or append URLs to one', auth: true, body: batchScrapeRequestSchema, response: r.jobStarted, errors: [400, 402, 404, 409, 503] })),
  ...both((v) => ({ method: 'get', path: `/${v}/batch/scrape/{id}`, tag: 'Batch scrape', summary: 'Batch scrape status and documents', auth: true, query: statusQuerySchema, response: r.jobStatus, errors: [400, 404] })),
  ...both((v) => ({ method: 'get', path: `/${v}/batch/scrape/{id}/errors`, tag: 'Batch scrape', summary: 'Failed pages of a batch scrape', auth: true, response: r.jobErrors, errors: [400, 404] })),
  ...both((v) => ({ method: 'delete', path: `/${v}/batch/scrape/{id}`, tag: 'Batch scrape', summary: 'Cancel a batch scrape', auth: true, response: r.cancelled, errors: [400, 404, 409] })),
  { method: 'get', path: '/v2/team/threat-protection', tag: 'Team', summary: "The team's threat-protection policy (admin scope)", auth: true, response: r.threatPolicy, errors: [] },
  { method: 'put', path: '/v2/team/threat-protection', tag: 'Team', summary: "Replace the team's threat-protection policy (admin scope)", auth: true, body: threatPolicySchema, response: r.threatPolicy, errors: [400] },
  { method: 'post', path: '/v2/agent', tag: 'Agent', summary: 'Start an agent run (needs a model)', auth: true, body: agentRequestSchema, response: r.agentStarted, errors: [400, 402, 422, 500] },
  { method: 'get', path: '/v2/agent', tag: 'Agent', summary: 'List agent runs, 20 at a time (before=<unix ms>)', auth: true, response: r.agentList, errors: [400] },
  { method: 'get', path: '/v2/agent/{id}', tag: 'Agent', summary: 'Agent run status and result', auth: true, response: r.agentStatus, errors: [400, 404] },
  { method: 'delete', path: '/v2/agent/{id}', tag: 'Agent', summary: 'Cancel an agent run', auth: true, response: r.agentCancelled, errors: [400, 404, 409] },
  { method: 'get', path: '/v2/agent/threads/{id}', tag: 'Agent', summary: 'An agent thread and its runs, in turn order', auth: true, query: threadQuerySchema, response: r.agentThread, errors: [400, 404] },
  { method: 'get', path: '/v2/agent/{id}/trace', tag: 'Agent', summary: "An agent run's ordered trace events", auth: true, response: r.agentTrace, errors: [400, 404] },
  { method: 'get', path: '/v2/agent/{id}/snapshots/{snapshotId}', tag: 'Agent', summary: 'One snapshot of an agent run', auth: true, response: r.agentSnapshot, errors: [400, 404] },
  ...both((v) => ({ method: 'post', path: `/${v}/search`, tag: 'Search', summary: 'Search the team index (or SearXNG), optionally scraping the results', auth: true, body: searchRequestSchema, response: r.searchResponse, errors: [400, 402, 408, 502, 503] })),
  ...both((v) => ({ method: 'post', path: `/${v}/extract`, tag: 'Extract', summary: 'Start an extract job: structured data from pages, by a language model', auth: true, body: extractRequestSchema, response: r.extractStarted, errors: [400, 402, 409, 422, 503] })),
  ...both((v) => ({ method: 'get', path: `/${v}/extract/{id}`, tag: 'Extract', summary: 'Extract job status and its answer', auth: true, response: r.extractStatus, errors: [400, 404] })),
  ...both((v) => ({ method: 'delete', path: `/${v}/extract/{id}`, tag: 'Extract', summary: 'Cancel an extract job', auth: true, response: r.cancelled, errors: [400, 404, 409] })),
  { method: 'post', path: '/v2/map', tag: 'Map', summary: 'List the URLs of a site', auth: true, body: mapRequestSchema, response: r.mapResponse, errors: [400, 402, 408] },
  { method: 'post', path: '/v1/map', tag: 'Map', summary: 'List the URLs of a site (v1: plain strings)', auth: true, body: mapRequestV1Schema, response: r.mapResponse, errors: [400, 402, 408] },
  ...both((v) => ({ method: 'get', path: `/${v}/team/credit-usage`, tag: 'Team', summary: 'Credits left this period', auth: true, response: r.usage, errors: [] })),
  ...both((v) => ({ method: 'get', path: `/${v}/team/credit-usage/historical`, tag: 'Team', summary: 'Credits used per period', auth: true, response: r.usage, errors: [] })),
  ...both((v) => ({ method: 'get', path: `/${v}/team/token-usage`, tag: 'Team', summary: 'Model tokens left this period', auth: true, response: r.usage, errors: [] })),
  ...both((v) => ({ method: 'get', path: `/${v}/team/token-usage/historical`, tag: 'Team', summary: 'Model tokens used per period', auth: true, response: r.usage, errors: [] })),
  { method: 'get', path: '/r/{target}', tag: 'Jina Reader', summary: 'Read one page, Jina Reader style: markdown as text/plain, or JSON (Accept: application/json), or an event stream', auth: true, headers: readerHeadersSchema, response: r.readerText, errors: [400, 402, 408, 500, 502], produces: 'text/plain' },
  { method: 'get', path: '/s/{query}', tag: 'Jina Reader', summary: 'Search and read the top five results, Jina Reader style', auth: true, headers: readerHeadersSchema, response: r.readerText, errors: [400, 402, 408, 502], produces: 'text/plain' },
  { method: 'get', path: '/v2/team/activity', tag: 'Team', summary: "The team's jobs of the last 24 hours, newest first", auth: true, query: teamActivityQuerySchema, response: r.teamActivity, errors: [400] },
  ...both((v) => ({ method: 'get', path: `/${v}/team/queue-status`, tag: 'Team', summary: 'Jobs queued and running for the team', auth: true, response: r.usage, errors: [] })),
  ...both((v) => ({ method: 'get', path: `/${v}/concurrency-check`, tag: 'Team', summary: 'Concurrency in use and allowed', auth: true, response: r.usage, errors: [] })),
  { method: 'post', path: '/v2/monitor', tag: 'Monitor', summary: 'Create a monitor: scheduled re-scrapes or re-crawls with change detection (a Temporal Schedule)', auth: true, body: monitorCreateRequestSchema, response: r.monitorResponse, errors: [400, 503] },
  { method: 'get', path: '/v2/monitor', tag: 'Monitor', summary: "The team's monitors", auth: true, query: monitorListQuerySchema, response: r.monitorList, errors: [400] },
  { method: 'get', path: '/v2/monitor/{id}', tag: 'Monitor', summary: 'One monitor', auth: true, response: r.monitorResponse, errors: [404] },
  { method: 'patch', path: '/v2/monitor/{id}', tag: 'Monitor', summary: 'Update, pause or resume a monitor', auth: true, body: monitorUpdateRequestSchema, response: r.monitorResponse, errors: [400, 404, 503] },
  { method: 'delete', path: '/v2/monitor/{id}', tag: 'Monitor', summary: 'Delete a monitor and its Schedule', auth: true, response: r.monitorDeleted, errors: [404, 503] },
  { method: 'post', path: '/v2/monitor/{id}/run', tag: 'Monitor', summary: 'Start a check now', auth: true, response: r.monitorCheckResponse, errors: [404, 503] },
  { method: 'get', path: '/v2/monitor/{id}/checks', tag: 'Monitor', summary: "A monitor's checks, newest first", auth: true, query: monitorChecksQuerySchema, response: r.monitorCheckList, errors: [400, 404] },
  { method: 'get', path: '/v2/monitor/{id}/checks/{checkId}', tag: 'Monitor', summary: 'One check with its pages (same, new, changed, removed, error) and diffs', auth: true, query: monitorCheckQuerySchema, response: r.monitorCheckDetail, errors: [400, 404] },
  ...(['browser', 'interact'] as const).flatMap((root): Operation[] => [
    { method: 'post', path: `/v2/${root}`, tag: 'Browser', summary: 'Open a live browser session (a Temporal workflow); 2 credits a minute', auth: true, body: browserCreateSchema, response: r.browserCreated, errors: [400, 402, 429, 503] },
    { method: 'get', path: `/v2/${root}`, tag: 'Browser', summary: "The team's browser sessions, newest first", auth: true, query: sessionListQuerySchema, response: r.browserList, errors: [400] },
    { method: 'get', path: `/v2/${root}/{id}`, tag: 'Browser', summary: 'One session', auth: true, response: r.browserSessionRead, errors: [404] },
    { method: 'post', path: `/v2/${root}/{id}/execute`, tag: 'Browser', summary: 'Run agent-browser commands (bash) or JavaScript with a page object (node) in the session', auth: true, body: browserExecuteSchema, response: r.browserExecuted, errors: [400, 404, 410] },
    { method: 'delete', path: `/v2/${root}/{id}`, tag: 'Browser', summary: 'End the session (saving its profile when asked); answers what its time cost', auth: true, response: r.browserDeleted, errors: [404] },
    { method: 'get', path: `/v2/${root}/{id}/replay`, tag: 'Browser', summary: 'The replay: one frame per execute', auth: true, response: r.browserReplay, errors: [404] },
    { method: 'get', path: `/v2/${root}/{id}/replay/{pageId}`, tag: 'Browser', summary: 'One replay frame, as an image', auth: true, response: r.document, errors: [400, 404], produces: 'image/jpeg' },
  ]),
  { method: 'get', path: '/v2/browser/profiles', tag: 'Browser', summary: "The team's browser profiles", auth: true, response: r.browserProfiles, errors: [] },
  { method: 'delete', path: '/v2/browser/profiles/{name}', tag: 'Browser', summary: 'Delete a browser profile', auth: true, response: r.uploaded, errors: [400, 404] },
  { method: 'post', path: '/v2/scrape/{id}/interact', tag: 'Browser', summary: "Run code or a prompt in the page a scrape left, in a session of the scrape's own", auth: true, body: interactSchema, response: r.browserExecuted, errors: [400, 402, 404, 410, 429] },
  { method: 'delete', path: '/v2/scrape/{id}/interact', tag: 'Browser', summary: "End a scrape's interact session", auth: true, response: r.browserDeleted, errors: [404] },
  { method: 'get', path: '/v2/media/{file}', tag: 'Media', summary: 'A stored screenshot or PDF (the file name is the capability)', auth: false, response: r.document, errors: [404], produces: 'application/octet-stream' },
];
