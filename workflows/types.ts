/** Inputs and results of workflows and activities. Small ids and counts only: bodies live in Postgres. */
import type { ScrapeOptions } from '../contracts/scrape-options.js';

export interface ScrapePageInput {
  jobId: string;
  teamId: string;
  /** Absolute URL to fetch. */
  url: string;
  /** The URL exactly as the caller wrote it (metadata.sourceURL); defaults to `url`. */
  sourceUrl?: string;
  options: ScrapeOptions;
  /** Epoch ms by which the whole scrape must be done; set once by whoever accepted the request. */
  deadline: number;
  /** Document id to use; a single scrape passes its job id so scrapeId and job id agree. */
  documentId?: string;
  /**
   * Where the API serves stored screenshots and PDFs (e.g. `https://host/v2/media`); the activity
   * stores them and links them under it. Absent: they stay inline as data: URIs.
   */
  mediaBaseUrl?: string;
}

export interface ScrapePageResult {
  documentId: string;
  statusCode: number;
  creditsUsed: number;
}

export type ScrapeWorkflowInput = ScrapePageInput;

export type ScrapeWorkflowResult = ScrapePageResult;

/** Crawler settings the page activities need to filter discovered links. */
export interface CrawlerSettings {
  startUrl: string;
  includePaths: string[];
  excludePaths: string[];
  regexOnFullURL: boolean;
  maxDiscoveryDepth?: number;
  limit: number;
  sitemap: 'include' | 'skip' | 'only';
  crawlEntireDomain: boolean;
  allowSubdomains: boolean;
  allowExternalLinks: boolean;
  ignoreRobotsTxt: boolean;
  ignoreQueryParameters: boolean;
  deduplicateSimilarURLs: boolean;
}

export interface FrontierPage {
  url: string;
  urlKey: string;
  depth: number;
}

export interface StartCrawlInput {
  jobId: string;
  crawler: CrawlerSettings;
}

export interface StartCrawlResult {
  queued: number;
  /** robots.txt Crawl-delay for the start origin, used when the request set no delay. */
  crawlDelaySecs?: number;
}

export interface ClaimPagesInput {
  jobId: string;
  /** Stable across retries of this claim, so a retry returns the same pages. */
  claimId: string;
  max: number;
}

export interface CrawlPageInput {
  jobId: string;
  teamId: string;
  page: FrontierPage;
  scrapeOptions: ScrapeOptions;
  /** Absent for batch scrapes: their pages discover nothing. */
  crawler?: CrawlerSettings;
  /** See ScrapePageInput.mediaBaseUrl. */
  mediaBaseUrl?: string;
}

export type CrawlPageResult = CrawlPageDone | CrawlPageDeferred;

export interface CrawlPageDone {
  deferred?: false;
  documentId: string;
  creditsUsed: number;
  /** Pages this page added to the frontier. */
  enqueued: number;
}

/** None of the team's concurrency slots came free in time: the workflow runs the page again later. */
export interface CrawlPageDeferred {
  deferred: true;
}

export interface RecordPageFailureInput {
  jobId: string;
  teamId: string;
  page: FrontierPage;
  code: string;
  error: string;
}

export interface FinishJobInput {
  jobId: string;
  status: 'completed' | 'failed' | 'cancelled';
  error?: string;
  /** Shown by the job's status, e.g. that it stopped early for lack of credits. */
  warning?: string;
  /** Retire pages still queued or claimed, which will now never be scraped (always done on cancel). */
  retireOpenPages?: boolean;
}
