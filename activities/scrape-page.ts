import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { storeScrapeResult } from '../db/repositories/documents.js';
import { pageCredits } from '../lib/credits.js';
import { NonRetryablePageError, toApplicationFailure } from '../lib/errors.js';
import { normalizeUrl, urlKey } from '../lib/url/normalize.js';
import type { ScrapePageInput, ScrapePageResult } from '../workflows/types.js';
import type { ActivityDeps } from './deps.js';
import { completedDocumentRow } from './page-document.js';
import { scrapeWithCacheCopy } from './page-history.js';
import { mediaPublisher } from './page-media.js';
import { withPageSignal } from './page-signal.js';
import { pageCharge, requireCredits, withCreditCode } from './team-budget.js';
import { NO_SLOT, withTeamSlot } from './team-slot.js';

/**
 * A synchronous scrape waits at most this long for one of the team's slots (and never more than
 * half the time left before its deadline), then answers 429 CONCURRENCY_LIMITED.
 */
const SYNC_SLOT_WAIT_MS = 10_000;

/**
 * One synchronous scrape: fetch, convert, store the Document with its charge (which also completes
 * the job), return its id.
 */
export function createScrapePageActivity(deps: ActivityDeps) {
  return async function scrapePage(input: ScrapePageInput): Promise<ScrapePageResult> {
    try {
      const budget = await requireCredits(deps.db, input.teamId);
      const waitMs = Math.min(SYNC_SLOT_WAIT_MS, Math.max(0, (input.deadline - Date.now()) / 2));
      const slotRequest = { teamId: input.teamId, limit: budget.plan.concurrency, waitMs };
      const done = await withTeamSlot(deps.db, slotRequest, (slot) =>
        withPageSignal(input.deadline, async (signal) => {
          // A retry may pick a fresh id: the store below keeps the first attempt's row and id.
          const scrapeId = input.documentId ?? randomUUID();
          const sourceUrl = input.sourceUrl ?? input.url;
          const pageKey = urlKey(normalizeUrl(input.url, { ignoreQueryParameters: false, deduplicateSimilarURLs: false }));
          const { outcome, cacheCopy } = await scrapeWithCacheCopy(
            {
              url: input.url,
              sourceUrl,
              options: input.options,
              scrapeId,
              deadline: input.deadline,
              signal,
              publishMedia: mediaPublisher(deps.db, input),
            },
            deps,
            { ...input, cacheReads: true },
          );
          const creditsUsed = pageCredits({ succeeded: true, pdf: outcome.pdf });
          outcome.document.metadata.creditsUsed = creditsUsed;
          const stored = await storeScrapeResult(deps.db, {
            document: completedDocumentRow({
              id: scrapeId,
              jobId: input.jobId,
              teamId: input.teamId,
              url: sourceUrl,
              urlKey: pageKey,
              document: outcome.document,
              creditsUsed,
            }),
            charge: pageCharge({
              teamId: input.teamId,
              jobId: input.jobId,
              documentId: scrapeId,
              urlKey: pageKey,
              credits: creditsUsed,
              plan: budget.plan,
            }),
            lease: slot,
            cacheCopy,
          });
          // Its transaction released the slot.
          slot.released = true;
          return { documentId: stored.id, statusCode: outcome.statusCode, creditsUsed };
        }),
      );
      if (done === NO_SLOT) throw new NonRetryablePageError('CONCURRENCY_LIMITED', 'Concurrency limit reached');
      return done;
    } catch (err) {
      if (Context.current().cancellationSignal.aborted) throw err;
      throw toApplicationFailure(withCreditCode(err));
    }
  };
}
