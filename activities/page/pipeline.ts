/**
 * The page pipeline: every page Trawl scrapes passes these stages, in order.
 *
 *  1. admit   — the team has credits left, threat protection allows the URL (../threat/gate.ts,
 *               which also guards every redirect hop and navigation of the fetch), and one of the
 *               team's concurrency slots is free (team-budget.ts, team-slot.ts); the work gets one
 *               AbortSignal for its deadline and cancellation.
 *  2. fetch   — from the team's page cache or the scraper (fetch.ts).
 *  3. enrich  — steps that add to the Document: change tracking, and any listed in enrich.ts.
 *  4. persist — the policy stores the Document with its charge in one transaction.
 *
 * A PagePolicy says how a kind of page is admitted, which fetched pages it accepts and how it
 * persists: activities/scrape-page.ts and activities/crawl-page.ts are the two today.
 */
import { randomUUID } from 'node:crypto';
import { resolveOutputs } from '../../contracts/page-outputs.js';
import type { ChangeDetection } from '../../contracts/change-detection.js';
import type { ScrapeOptions } from '../../contracts/scrape-options.js';
import type { CacheCopy } from '../../db/repositories/page-cache.js';
import { pageCredits } from '../../lib/credits.js';
import { sha256Hex } from '../../lib/hash.js';
import { searchEntry, type SearchEntry } from '../../lib/search/index-entry.js';
import type { TeamPlan } from '../../lib/plans.js';
import type { ScrapeOutcome } from '../../scraper/scrape.js';
import type { ActivityDeps } from '../deps.js';
import { pageThreatGate, type PageThreatGate } from '../threat/gate.js';
import { enrich, type EnrichStep } from './enrich/steps.js';
import { previousValidators } from './enrich/change-tracking.js';
import { addWarning } from './enrich/model.js';
import { fetchPage } from './fetch.js';
import { mediaPublisher } from './media.js';
import { withPageSignal } from './signal.js';
import { requireCredits, type TeamBudget } from './team-budget.js';
import { NO_SLOT, withTeamSlot, type HeldSlot } from './team-slot.js';

export { NO_SLOT };

/** One page to run through the pipeline. */
export interface PageTask {
  teamId: string;
  jobId: string;
  /** Absolute URL to fetch. */
  url: string;
  /** The URL as the caller wrote it (metadata.sourceURL). */
  sourceUrl: string;
  options: ScrapeOptions;
  /** Where stored screenshots and PDFs are linked from; absent leaves them inline. */
  mediaBaseUrl?: string;
  /** A monitor's page: conditional requests and noise-aware comparison (contracts/change-detection.ts). */
  changeDetection?: ChangeDetection;
  /** A parse: the id of the file uploaded to POST /v2/parse (db/repositories/parse-uploads.ts), read instead of fetching `url`. */
  uploadId?: string;
  /** A query-directed crawl's page: see ScrapeRequest.relevance. */
  relevance?: boolean;
}

/** A page that went through fetch and enrich, ready to be stored. */
export interface PageToPersist {
  task: PageTask;
  /** A fresh id for the page's Document; a policy may keep an earlier one instead. */
  documentId: string;
  outcome: ScrapeOutcome;
  /** The page's whole cost, written into `metadata.creditsUsed` too. */
  creditsUsed: number;
  plan: TeamPlan;
  /** The page's threat protection, for the URLs a policy goes on to contact (robots.txt of links). */
  threat?: PageThreatGate;
  slot: HeldSlot;
  cacheCopy?: CacheCopy;
  /** The page's search-index entry, absent for a zero-data-retention job. */
  search?: SearchEntry;
}

export interface PagePolicy<Result> {
  /** How long the page waits for one of the team's slots before the pipeline returns NO_SLOT. */
  slotWaitMs: number;
  /** Epoch ms by which fetch and enrich must be done; read when the slot is granted. */
  deadline(): number;
  /** Whether a cached copy may answer instead of a fetch (see PageOwner.cacheReads). */
  cacheReads: boolean;
  /**
   * The team's plan and credits, read once for several pages (a frontier slice's lane) or by the
   * API for the request (a synchronous scrape); read for this page when absent. Only the admission check uses it: each charge re-checks under a row lock.
   */
  budget?: Promise<TeamBudget>;
  /**
   * A slot of the team's concurrency limit already held for this page (a frontier slice's lane,
   * activities/crawl-slice.ts); the page then leases none of its own.
   */
  slot?: HeldSlot;
  /** The Document id to use; defaults to a fresh one. */
  documentId?: string;
  /** Throws to fail a fetched page the policy does not accept as content. */
  accept?(outcome: ScrapeOutcome): void;
  persist(page: PageToPersist, deps: ActivityDeps): Promise<Result>;
}

export async function runPage<Result>(
  deps: ActivityDeps,
  steps: readonly EnrichStep[],
  task: PageTask,
  policy: PagePolicy<Result>,
): Promise<Result | typeof NO_SLOT> {
  if (!deps.pageMetrics) return runStages(deps, steps, task, policy);
  const started = Date.now();
  let engine = 'none';
  try {
    const result = await runStages(deps, steps, task, policy, (e) => (engine = e));
    if (result !== NO_SLOT) deps.pageMetrics.observe(engine, 'completed', Date.now() - started);
    return result;
  } catch (err) {
    deps.pageMetrics.observe(engine, 'failed', Date.now() - started);
    throw err;
  }
}

async function runStages<Result>(
  deps: ActivityDeps,
  steps: readonly EnrichStep[],
  task: PageTask,
  policy: PagePolicy<Result>,
  fetchedWith?: (engine: string) => void,
): Promise<Result | typeof NO_SLOT> {
  const budget = await (policy.budget ?? requireCredits(deps.db, task.teamId));
  const threat = await pageThreatGate(deps, task.teamId, task.options.threatProtection, budget.plan.threatProtection);
  // Lockdown contacts nobody about the page, a classifier service neither: the lists alone decide.
  // An upload contacts nobody; its `url` only names it.
  if (!task.uploadId && (!task.options.lockdown || threat?.blockedByLists(task.url))) await threat?.check(task.url);
  const run = (slot: HeldSlot) => {
    const deadline = policy.deadline();
    return withPageSignal(deadline, async (signal) => {
      const documentId = policy.documentId ?? randomUUID();
      const outputs = resolveOutputs(task.options.formats);
      const owner = { teamId: task.teamId, jobId: task.jobId, cacheReads: policy.cacheReads };
      const conditional =
        task.changeDetection?.conditional && outputs.changeTracking
          ? await previousValidators(deps, owner, task.url, outputs.changeTracking.tag)
          : undefined;
      const request = {
        conditional,
        url: task.url,
        sourceUrl: task.sourceUrl,
        options: task.options,
        outputs,
        scrapeId: documentId,
        deadline,
        signal,
        // Zero data retention keeps screenshots and PDFs inline: nothing of the page is stored apart.
        publishMedia: task.options.zeroDataRetention ? undefined : mediaPublisher(deps.db, task),
        checkUrl: threat?.check,
        relevance: task.relevance,
      };
      const { outcome, cacheCopy } = await fetchPage(request, deps, owner, task.uploadId);
      policy.accept?.(outcome);
      const fromCache = outcome.document.metadata.cacheState === 'hit';
      fetchedWith?.(fromCache ? 'cache' : outcome.engine);
      const enrichCredits = await enrich(
        { deps, owner, url: task.url, options: task.options, outputs, outcome, fromCache, signal, changeDetection: task.changeDetection },
        steps,
      );
      // The markdown as delivered, after every step that rewrites it (redactPII, onlyCleanContent).
      if (typeof outcome.document.markdown === 'string') outcome.document.metadata.contentHash = sha256Hex(outcome.document.markdown);
      // Produced for the model formats only; the caller did not ask for it.
      if (!outputs.markdown) delete outcome.document.markdown;
      addWarning(outcome, threat?.warning);
      const creditsUsed = pageCredits({ succeeded: true, pdf: outcome.pdf, threatScannedUrls: threat?.scanned, lockdown: task.options.lockdown, zeroDataRetention: task.options.zeroDataRetention }) + enrichCredits;
      outcome.document.metadata.creditsUsed = creditsUsed;
      // The stored Document keeps the markdown the copy has, unless a stage above changed or dropped it.
      if (cacheCopy?.markdown !== undefined) cacheCopy.markdownInDocument = outcome.document.markdown === cacheCopy.markdown;
      // The built-in search index lists every page a team stored, unless its job keeps nothing.
      const search = task.options.zeroDataRetention ? undefined : searchEntry(outcome.document, task.sourceUrl);
      return policy.persist({ task, documentId, outcome, creditsUsed, plan: budget.plan, threat, slot, cacheCopy, search }, deps);
    });
  };
  if (policy.slot) return run(policy.slot);
  return withTeamSlot(deps.db, { teamId: task.teamId, limit: budget.plan.concurrency, waitMs: policy.slotWaitMs }, run);
}
