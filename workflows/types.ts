/** Inputs and results of workflows and activities. Small ids and counts only: bodies live in Postgres. */
import type { ScrapeOptions } from '../api/schemas/scrape-options.js';

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
}

export interface ScrapePageResult {
  documentId: string;
  statusCode: number;
  creditsUsed: number;
}

export type ScrapeWorkflowInput = ScrapePageInput;

export type ScrapeWorkflowResult = ScrapePageResult;
