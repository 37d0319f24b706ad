/** Table interfaces: one `XxxTable` per table, row types derived with Selectable/Insertable/Updateable. */
import type { ColumnType, Generated, Insertable, JSONColumnType, Selectable, Updateable } from 'kysely';

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type Timestamp = ColumnType<Date, Date | string, Date | string>;

export interface TeamTable {
  id: Generated<string>;
  name: string;
  /** HMAC key for X-Firecrawl-Signature; null sends webhooks unsigned. */
  webhook_secret: string | null;
  created_at: CreatedAt;
  /** Set by `teams delete`: the team's keys are revoked and its name is free again. */
  deleted_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface ApiKeyTable {
  id: Generated<string>;
  team_id: string;
  /** sha256 of the key; the key itself is shown once and never stored. */
  key_hash: string;
  /** First characters of the key, so people can tell their keys apart in `keys list`. */
  key_prefix: string;
  /** Endpoint classes this key may use; null means all of them. */
  scopes: string[] | null;
  created_at: CreatedAt;
  revoked_at: Timestamp | null;
  /** Refreshed at most once a minute (api/middleware/auth.ts), so the lookup stays a read. */
  last_used_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export const JOB_KINDS = ['scrape', 'crawl', 'batch_scrape', 'map', 'extract', 'search', 'agent', 'browser'] as const;
export type JobKind = (typeof JOB_KINDS)[number];
export const JOB_STATUSES = ['scraping', 'completed', 'failed', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export interface JobTable {
  id: string;
  team_id: string;
  kind: JobKind;
  status: JobStatus;
  url: string | null;
  /** The validated request options, as the API parsed them. */
  options: JSONColumnType<Record<string, unknown>>;
  workflow_id: string;
  error: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
  completed_at: Timestamp | null;
  expires_at: Timestamp;
  /** Small job results that are not documents (map links). */
  result: JSONColumnType<Record<string, unknown>> | null;
  /** Shown on the status response, e.g. robots.txt blocked pages or a clamped limit. */
  warning: string | null;
  idempotency_key: string | null;
  /** The key that started the job (null with AUTH=none); usage by key is read through it. */
  api_key_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The job keeps nothing: no cache, index or snapshot writes; Documents deleted once delivered. */
  zero_data_retention: Generated<boolean>;
  /** `v1` or `v2`: the API the job was started through; null when no request started it. */
  api_version: ColumnType<string | null, string | null | undefined, string | null>;
  /** An agent run's thread (agent_threads) and its 1-based turn in it; null for other jobs. */
  thread_id: ColumnType<string | null, string | null | undefined, string | null>;
  thread_turn: ColumnType<number | null, number | null | undefined, number | null>;
}

export type DocumentStatus = 'completed' | 'failed';

export interface DocumentTable {
  /** The scrapeId reported in metadata and in webhooks. */
  id: string;
  job_id: string;
  team_id: string;
  /** The URL as requested (metadata.sourceURL). */
  url: string;
  /** Normalised-URL hash; (job_id, url_key) is unique so retried activities write once. */
  url_key: string;
  status: DocumentStatus;
  /** The Firecrawl Document (markdown, html, links, metadata, ...); null for failures. */
  document: JSONColumnType<Record<string, unknown>> | null;
  size_bytes: number;
  error_code: string | null;
  error: string | null;
  credits_used: number;
  created_at: CreatedAt;
}

export type CrawlPageStatus = 'queued' | 'scraping' | 'completed' | 'failed' | 'cancelled';

export interface CrawlPageTable {
  job_id: string;
  url_key: string;
  url: string;
  depth: number;
  /** Insertion order; pages are claimed oldest first. */
  seq: Generated<string>;
  status: ColumnType<CrawlPageStatus, CrawlPageStatus | undefined, CrawlPageStatus>;
  document_id: string | null;
  error_code: string | null;
  error: string | null;
  claim_id: string | null;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
  /** A query-directed crawl's link score; claimed highest first. Null in other jobs. */
  score: number | null;
  /** The page the link was found on, in a query-directed crawl. */
  parent_url: string | null;
}

/** A query-directed crawl's progress (db/repositories/crawl-focus.ts). */
export interface CrawlFocusTable {
  job_id: string;
  min_score: number;
  page_limit: number;
  evidence: number;
  claimed: Generated<number>;
  scored: Generated<number>;
  relevant: Generated<number>;
  streak: Generated<number>;
  pages_per_term: number[];
  stop_reason: string | null;
}

export interface CrawlRobotsTable {
  job_id: string;
  origin: string;
  /** HTTP status of the robots.txt fetch; 0 when unreachable. */
  status: number;
  body: string;
}

export interface RobotsBlockedTable {
  job_id: string;
  url: string;
}

/** The tool calls of a team's failed agent runs that were refunded, per month (lib/plans.ts unbilledFailedAgentPages). */
export interface UnbilledFailedWorkTable {
  team_id: string;
  period_start: ColumnType<Date, Date | string, Date | string>;
  pages: number;
}

/** Secrets every API process shares (the dashboard's sign-in tokens are signed with one). */
export interface ServerSecretTable {
  name: string;
  value: Buffer;
}

/** A team's plan; a team without a row gets the defaults in lib/plans.ts. */
export interface TeamPlanTable {
  team_id: string;
  /** Credits per calendar month (UTC). */
  monthly_credits: number;
  monthly_tokens: number;
  /** Requests per minute, one column per endpoint class. */
  scrape_rpm: number;
  crawl_rpm: number;
  crawl_status_rpm: number;
  map_rpm: number;
  search_rpm: number;
  extract_rpm: number;
  agent_rpm: number;
  /** Pages of the team fetched at once, across all its jobs. */
  concurrency: number;
  zero_data_retention: boolean;
  threat_protection: boolean;
  max_monitors: number;
  agent_concurrency: number;
  unbilled_failed_agent_pages: number;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

/** Append-only: one row per charge; `charge_key` is unique so a retried activity charges once. */
export interface CreditLedgerTable {
  id: Generated<string>;
  team_id: string;
  api_key_id: string | null;
  job_id: string | null;
  document_id: string | null;
  /** e.g. `page:<job id>:<url key>`: the same for every attempt at the same page. */
  charge_key: string;
  reason: string;
  credits: number;
  created_at: CreatedAt;
}

/** The ledger's total per team and billing period, kept in the same transaction as each charge. */
export interface CreditUsageTable {
  team_id: string;
  /** First day of the calendar month (UTC). */
  period_start: ColumnType<Date, Date | string, never>;
  used: number;
}

export interface RateLimitCounterTable {
  team_id: string;
  endpoint: string;
  /** Start of the one-minute window. */
  window_start: ColumnType<Date, Date | string, never>;
  count: number;
}

/** A lease on one of the team's `concurrency` slots; an expired lease is free. */
export interface ConcurrencySlotTable {
  team_id: string;
  slot: number;
  lease_id: string;
  expires_at: Timestamp;
}

/** A stored screenshot or PDF, served at /v2/media/<id>.<ext> until its retention runs out. */
export interface MediaTable {
  /** 32 random bytes, base64url: the unguessable part of the URL, and its only access check. */
  id: string;
  job_id: string;
  team_id: string;
  mime_type: string;
  data: Buffer;
  created_at: CreatedAt;
}

/** A file uploaded to POST /v2/parse, read by the worker's parse page (db/repositories/parse-uploads.ts). */
export interface ParseUploadTable {
  id: string;
  team_id: string;
  filename: string;
  /** What the upload declared; the parser trusts the bytes, not this. */
  content_type: string;
  data: Buffer;
  /** A two-step upload's capability (random, 32 bytes); null for a multipart parse. */
  upload_ref: string | null;
  /** False until a two-step upload's PUT has stored the bytes. */
  received: Generated<boolean>;
  created_at: CreatedAt;
}

export const BROWSER_SESSION_STATUSES = ['active', 'destroyed', 'lost'] as const;
export type BrowserSessionStatus = (typeof BROWSER_SESSION_STATUSES)[number];

/** A live browser session (workflows/browser-session.ts); its job row (kind `browser`) has the same id. */
export interface BrowserSessionTable {
  id: string;
  team_id: string;
  /** The scrape a `POST /v2/scrape/{id}/interact` session continues; null for a standalone one. */
  scrape_id: string | null;
  ttl_s: number;
  activity_ttl_s: number;
  profile_name: string | null;
  save_changes: Generated<boolean>;
  /** `lost`: its worker died; the session ended with SESSION_LOST. */
  status: ColumnType<BrowserSessionStatus, BrowserSessionStatus | undefined, BrowserSessionStatus>;
  /** A prompt ran in it: its time is billed at the interact rate (lib/credits.ts). */
  used_prompt: Generated<boolean>;
  created_at: CreatedAt;
  last_activity_at: ColumnType<Date, Date | undefined, Date>;
  ended_at: Timestamp | null;
  end_reason: string | null;
  duration_ms: ColumnType<number | null, never, number | null>;
  credits_billed: number | null;
}

/** One screenshot per execute, served by GET /v2/browser/{id}/replay. */
export interface BrowserSessionFrameTable {
  session_id: string;
  seq: number;
  at: CreatedAt;
  page_url: string;
  action: string;
  image: Buffer;
}

/** A team's browser profile: cookies and localStorage, sealed with BROWSER_PROFILE_KEY. */
export interface BrowserProfileTable {
  team_id: string;
  name: string;
  sealed: Buffer;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

/** A team's cached copy of a page; see db/repositories/page-cache.ts for the bounds. */
export interface PageCacheTable {
  team_id: string;
  /** lib/page-cache-key.ts: URL plus every option that changes the Document. */
  cache_key: string;
  url: string;
  /** The Document as first scraped; a hit replaces its per-request metadata (scrapeId, sourceURL). */
  document: JSONColumnType<Record<string, unknown>>;
  /** The rest of the scrape's outcome (status, links a crawl follows, PDF billing), as the activity wrote it. */
  outcome: JSONColumnType<Record<string, unknown>>;
  size_bytes: number;
  cached_at: Timestamp;
}

/** Each team's page_cache bytes, kept by triggers (migration 2026_11_27_000100). */
export interface PageCacheTotalTable {
  team_id: string;
  bytes: number;
}

/** The markdown a change-tracking scrape saw, per (team, URL key, tag) and job. */
export interface ChangeSnapshotTable {
  team_id: string;
  url_key: string;
  /** The changeTracking `tag`; '' for none. */
  tag: string;
  job_id: string;
  markdown: string;
  status_code: number;
  /** The json mode's answer for this markdown; null when the mode was not asked for. */
  extraction: ColumnType<unknown, string | null | undefined, string | null>;
  /** Reset when a retried job replaces its snapshot. */
  scraped_at: ColumnType<Date, Date | string | undefined, Date | string>;
  /** The response's validators, sent back by a monitor's next check as If-None-Match / If-Modified-Since. */
  etag: ColumnType<string | null, string | null | undefined, string | null>;
  last_modified: ColumnType<string | null, string | null | undefined, string | null>;
}

export type MonitorStatus = 'active' | 'paused';
export type MonitorCheckStatus = 'queued' | 'running' | 'completed' | 'failed' | 'partial' | 'skipped_overlap' | 'skipped_no_credits';
export type MonitorPageStatus = 'same' | 'new' | 'changed' | 'removed' | 'error';

/** A monitor (db/repositories/monitors.ts): wire fields as normalised by the API, plus its run plan. */
export interface MonitorTable {
  id: string;
  team_id: string;
  name: string;
  status: MonitorStatus;
  /** {cron, timezone, text?} */
  schedule: JSONColumnType<Record<string, unknown>>;
  /** The targets as read back (each with its id) and, under `plan`, what a check runs for each. */
  targets: JSONColumnType<Record<string, unknown>[]>;
  webhook: JSONColumnType<Record<string, unknown>> | null;
  notification: JSONColumnType<Record<string, unknown>> | null;
  retention_days: number;
  goal: string | null;
  judge_enabled: boolean;
  estimated_credits_per_month: number;
  /** The Temporal Schedule that starts its checks. */
  schedule_id: string;
  current_check_id: string | null;
  last_run_at: Timestamp | null;
  last_check_summary: JSONColumnType<Record<string, number>> | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface MonitorCheckTable {
  id: string;
  monitor_id: string;
  team_id: string;
  status: MonitorCheckStatus;
  trigger: 'scheduled' | 'manual';
  scheduled_for: Timestamp | null;
  started_at: Timestamp | null;
  finished_at: Timestamp | null;
  estimated_credits: number | null;
  actual_credits: number | null;
  summary: JSONColumnType<Record<string, number>>;
  /** Per target: its id, type and the job that ran it (crawlId / expectedJobs). */
  target_results: ColumnType<Record<string, unknown>[], string | undefined, string>;
  /** Whether the goal was judged by the model on this check. */
  judged: ColumnType<boolean, boolean | undefined, boolean>;
  error: string | null;
  workflow_id: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
  expires_at: Timestamp;
}

export interface MonitorCheckPageTable {
  id: string;
  check_id: string;
  monitor_id: string;
  target_id: string;
  url: string;
  url_key: string;
  status: MonitorPageStatus;
  previous_scrape_id: string | null;
  current_scrape_id: string | null;
  status_code: number | null;
  error: string | null;
  diff: JSONColumnType<Record<string, unknown>> | null;
  judgment: JSONColumnType<Record<string, unknown>> | null;
  created_at: CreatedAt;
}

/** One failed webhook delivery attempt (db/repositories/webhook-failures.ts). */
export interface WebhookFailureTable {
  /** The job's, or else the monitor check's: exactly one is set. */
  job_id: string | null;
  check_id: string | null;
  delivery_id: string;
  attempt: number;
  event: string;
  code: string;
  error: string;
  /** No further attempt follows: the event was given up. */
  final: boolean;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

/** A purged job's tombstone (db/repositories/retention.ts). */
export interface ExpiredJobTable {
  id: string;
  team_id: string;
  kind: JobKind;
  expired_at: Timestamp;
  purged_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

/** One model call's tokens (db/repositories/token-ledger.ts). */
export interface TokenLedgerTable {
  id: Generated<string>;
  team_id: string;
  api_key_id: string | null;
  job_id: string | null;
  /** What the call was for: `json`, `summary`, `extract`, `crawl-prompt`, ... */
  feature: string;
  model: string;
  input_tokens: number;
  output_tokens: number;
  created_at: CreatedAt;
}

/** The built-in search index: the newest stored version of each team URL (written with each stored page). */
export interface SearchDocumentTable {
  team_id: string;
  url: string;
  host: string;
  title: string;
  description: string;
  content: string;
  lang: string | null;
  published_at: Date | null;
  scraped_at: Date;
  is_article: boolean;
  images: JSONColumnType<{ alt: string; src: string }[]>;
  tsv: ColumnType<string, never, never>;
}

/** A team's threat-protection policy without `enabled` (db/repositories/threat-policy.ts). */
export interface TeamThreatPolicyTable {
  team_id: string;
  policy: JSONColumnType<Record<string, unknown>>;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

/** Agent runs (db/repositories/agent-runs.ts). */
export interface AgentTraceEventTable {
  run_id: string;
  /** '' for the orchestrator, '3' for the sub-agent spawned at its step 3, '3.2' for that one's own. */
  agent_key: ColumnType<string, string | undefined, never>;
  seq: number;
  type: string;
  payload: JSONColumnType<Record<string, unknown>>;
  occurred_at: ColumnType<Date, Date | string | undefined, never>;
}

export interface AgentStepTable {
  run_id: string;
  agent_key: ColumnType<string, string | undefined, never>;
  step: number;
  tool: string;
  input: JSONColumnType<Record<string, unknown>>;
  result: string;
}

/** A conversation of agent runs (db/repositories/agent-threads.ts). */
export interface AgentThreadTable {
  id: string;
  team_id: string;
  created_at: CreatedAt;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface AgentSnapshotTable {
  run_id: string;
  snapshot_id: string;
  content: ColumnType<unknown, string, string>;
  created_at: ColumnType<Date, Date | string | undefined, never>;
}

/** Dashboard sign-ins (db/repositories/dashboard-sessions.ts). */
export interface DashboardSessionTable {
  token_hash: string;
  api_key_id: string | null;
  csrf_token: string;
  flash: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: CreatedAt;
  expires_at: Timestamp;
}

/** Requests refused for a team's limits, per UTC day and code (db/repositories/refusals.ts). */
export interface TeamRefusalTable {
  team_id: string;
  day: ColumnType<Date, string, never>;
  code: string;
  count: number;
}

export interface Database {
  teams: TeamTable;
  api_keys: ApiKeyTable;
  jobs: JobTable;
  documents: DocumentTable;
  crawl_pages: CrawlPageTable;
  robots_blocked: RobotsBlockedTable;
  crawl_robots: CrawlRobotsTable;
  crawl_focus: CrawlFocusTable;
  team_plans: TeamPlanTable;
  credit_ledger: CreditLedgerTable;
  credit_usage: CreditUsageTable;
  rate_limit_counters: RateLimitCounterTable;
  concurrency_slots: ConcurrencySlotTable;
  media: MediaTable;
  parse_uploads: ParseUploadTable;
  browser_sessions: BrowserSessionTable;
  browser_session_frames: BrowserSessionFrameTable;
  browser_profiles: BrowserProfileTable;
  page_cache: PageCacheTable;
  page_cache_totals: PageCacheTotalTable;
  change_snapshots: ChangeSnapshotTable;
  expired_jobs: ExpiredJobTable;
  webhook_failures: WebhookFailureTable;
  token_ledger: TokenLedgerTable;
  search_documents: SearchDocumentTable;
  team_threat_policies: TeamThreatPolicyTable;
  agent_trace_events: AgentTraceEventTable;
  agent_steps: AgentStepTable;
  agent_snapshots: AgentSnapshotTable;
  agent_threads: AgentThreadTable;
  monitors: MonitorTable;
  monitor_checks: MonitorCheckTable;
  monitor_check_pages: MonitorCheckPageTable;
  dashboard_sessions: DashboardSessionTable;
  team_refusals: TeamRefusalTable;
  server_secrets: ServerSecretTable;
  unbilled_failed_work: UnbilledFailedWorkTable;
}

export type Team = Selectable<TeamTable>;
export type ApiKey = Selectable<ApiKeyTable>;
export type Job = Selectable<JobTable>;
export type NewJob = Insertable<JobTable>;
export type JobUpdate = Updateable<JobTable>;
export type CrawlPage = Selectable<CrawlPageTable>;
export type DocumentRow = Selectable<DocumentTable>;
export type NewDocument = Insertable<DocumentTable>;
export type TeamPlanRow = Selectable<TeamPlanTable>;
export type NewMedia = Insertable<MediaTable>;
