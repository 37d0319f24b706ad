import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { upsertDocument } from '../db/repositories/documents.js';
import { pageCredits } from '../lib/credits.js';
import { toApplicationFailure } from '../lib/errors.js';
import { normalizeUrl, urlKey } from '../lib/url/normalize.js';
import { scrapeUrl } from '../scraper/scrape.js';
import type { ScrapePageInput, ScrapePageResult } from '../workflows/types.js';
import type { ActivityDeps } from './deps.js';

/** Heartbeats must arrive well inside the 20 s heartbeat timeout set in workflows/activities.ts. */
const HEARTBEAT_INTERVAL_MS = 2_000;

export function createScrapePageActivity(deps: ActivityDeps) {
  return async function scrapePage(input: ScrapePageInput): Promise<ScrapePageResult> {
    const ctx = Context.current();
    const heartbeat = setInterval(() => ctx.heartbeat(), HEARTBEAT_INTERVAL_MS);
    // One signal for both ways a page stops early: the scrape deadline and a Temporal cancel.
    const signal = AbortSignal.any([
      ctx.cancellationSignal,
      AbortSignal.timeout(Math.max(0, input.deadline - Date.now())),
    ]);
    try {
      // A retry may pick a fresh id: the upsert below keeps the first attempt's row and id.
      const scrapeId = input.documentId ?? randomUUID();
      const sourceUrl = input.sourceUrl ?? input.url;
      const outcome = await scrapeUrl(
        { url: input.url, sourceUrl, options: input.options, scrapeId, deadline: input.deadline, signal },
        deps,
      );
      const creditsUsed = pageCredits({ succeeded: true });
      outcome.document.metadata.creditsUsed = creditsUsed;
      const body = JSON.stringify(outcome.document);
      const stored = await upsertDocument(deps.db, {
        id: scrapeId,
        job_id: input.jobId,
        team_id: input.teamId,
        url: sourceUrl,
        url_key: urlKey(normalizeUrl(input.url, { ignoreQueryParameters: false, deduplicateSimilarURLs: false })),
        status: 'completed',
        document: body,
        size_bytes: Buffer.byteLength(body),
        credits_used: creditsUsed,
      });
      return { documentId: stored.id, statusCode: outcome.statusCode, creditsUsed };
    } catch (err) {
      if (ctx.cancellationSignal.aborted) throw err;
      throw toApplicationFailure(err);
    } finally {
      clearInterval(heartbeat);
    }
  };
}
