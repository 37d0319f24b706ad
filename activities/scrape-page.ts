/**
 * The scrape policy over the page pipeline (activities/page/pipeline.ts): one synchronous scrape.
 * Its store transaction completes the job and notifies the waiting API, so the scrape job's
 * "completed" belongs to this activity, not to its workflow.
 */
import { resolveOutputs } from '../contracts/page-outputs.js';
import type { ScrapeOptions } from '../contracts/scrape-options.js';
import { storeScrapeResult } from '../db/repositories/documents.js';
import { NonRetryablePageError } from '../lib/errors.js';
import { exactPageKey, urlKey } from '../lib/url/normalize.js';
import { atActivityBoundary } from './boundary.js';
import type { ActivityDeps } from './deps.js';
import { completedDocumentRow } from './page/document-row.js';
import { ENRICH_STEPS, type EnrichStep } from './page/enrich/steps.js';
import { NO_SLOT, runPage, type PagePolicy } from './page/pipeline.js';
import { pageCharge, withCreditCode, type TeamBudget } from './page/team-budget.js';

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
  /** A parse (POST /v2/parse): the stored upload to convert instead of fetching `url`. */
  uploadId?: string;
  /**
   * The team's plan and credits as the API read them for this request (its rate limit and credit
   * check): admission reads them no second time. The charge re-checks the credits under a row lock.
   */
  budget?: TeamBudget;
}

export interface ScrapePageResult {
  documentId: string;
  statusCode: number;
  creditsUsed: number;
}

/**
 * A synchronous scrape waits at most this long for one of the team's slots (and never more than
 * half the time left before its deadline), then answers 429 CONCURRENCY_LIMITED.
 */
const SYNC_SLOT_WAIT_MS = 10_000;

export function createScrapePageActivity(deps: ActivityDeps, steps: readonly EnrichStep[] = ENRICH_STEPS) {
  return async function scrapePage(input: ScrapePageInput): Promise<ScrapePageResult> {
    const sourceUrl = input.sourceUrl ?? input.url;
    const task = { ...input, sourceUrl };
    const run = () => runPage(deps, steps, task, scrapePolicy(input));
    // The caller waits for the Document to be converted and stored, and the page's reset would
    // compete with that for the CPU, so it comes after (about 10 ms of the p50, bench/RESULTS.md).
    // Not when an enrich step follows: a model call would hold the page and its slot for seconds.
    const outputs = resolveOutputs(input.options.formats);
    const resetAfterStore = !steps.some((step) => step.appliesTo(outputs, input.options));
    return atActivityBoundary(async () => {
      const done = await (resetAfterStore ? deps.browser.deferResets(run) : run());
      if (done === NO_SLOT) throw new NonRetryablePageError('CONCURRENCY_LIMITED', 'Concurrency limit reached');
      return done;
    }, withCreditCode);
  };
}

function scrapePolicy(input: ScrapePageInput): PagePolicy<ScrapePageResult> {
  return {
    slotWaitMs: Math.min(SYNC_SLOT_WAIT_MS, Math.max(0, (input.deadline - Date.now()) / 2)),
    deadline: () => input.deadline,
    cacheReads: true,
    ...(input.budget && { budget: Promise.resolve(input.budget) }),
    // A retry may pick a fresh id: the store below keeps the first attempt's row and id.
    documentId: input.documentId,
    async persist({ task, documentId, outcome, creditsUsed, plan, slot, cacheCopy, search }, { db }) {
      // An upload's pseudo-URL (file://…) is no web address to normalise; its id is unique already.
      const pageKey = task.uploadId ? urlKey(`upload:${task.uploadId}`) : exactPageKey(task.url);
      const stored = await storeScrapeResult(db, {
        document: completedDocumentRow({
          id: documentId,
          jobId: task.jobId,
          teamId: task.teamId,
          url: task.sourceUrl,
          urlKey: pageKey,
          document: outcome.document,
          creditsUsed,
        }),
        charge: pageCharge({
          teamId: task.teamId,
          jobId: task.jobId,
          documentId,
          urlKey: pageKey,
          credits: creditsUsed,
          plan,
        }),
        lease: slot,
        cacheCopy,
        // An upload is the team's private file, not a page of the web to find again, as in Firecrawl.
        search: task.uploadId ? undefined : search,
      });
      // Its transaction released the slot.
      slot.released = true;
      return { documentId: stored.id, statusCode: outcome.statusCode, creditsUsed };
    },
  };
}
