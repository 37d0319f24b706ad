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
}

export type JobKind = 'scrape' | 'crawl' | 'batch_scrape' | 'map';
export type JobStatus = 'scraping' | 'completed' | 'failed' | 'cancelled';

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

export interface Database {
  teams: TeamTable;
  api_keys: ApiKeyTable;
  jobs: JobTable;
  documents: DocumentTable;
  crawl_pages: CrawlPageTable;
  robots_blocked: RobotsBlockedTable;
  crawl_robots: CrawlRobotsTable;
}

export type Team = Selectable<TeamTable>;
export type ApiKey = Selectable<ApiKeyTable>;
export type Job = Selectable<JobTable>;
export type NewJob = Insertable<JobTable>;
export type JobUpdate = Updateable<JobTable>;
export type CrawlPage = Selectable<CrawlPageTable>;
export type DocumentRow = Selectable<DocumentTable>;
export type NewDocument = Insertable<DocumentTable>;
