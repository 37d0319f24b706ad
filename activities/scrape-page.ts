import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { upsertDocument } from '../db/repositories/documents.js';
import { pageCredits } from '../lib/credits.js';
import { toApplicationFailure } from '../lib/errors.js';
import { normalizeUrl, urlKey } from '../lib/url/normalize.js';
import { scrapeUrl } from '../scraper/scrape.js';
import type { ScrapePageInput, ScrapePageResult } from '../workflows/types.js';
import type { ActivityDeps } from './deps.js';
import { completedDocumentRow } from './page-document.js';
import { withPageSignal } from './page-signal.js';

/** One synchronous scrape: fetch, convert, store the Document, return its id. */
export function createScrapePageActivity(deps: ActivityDeps) {
  return async function scrapePage(input: ScrapePageInput): Promise<ScrapePageResult> {
    try {
      return await withPageSignal(input.deadline, async (signal) => {
        // A retry may pick a fresh id: the upsert below keeps the first attempt's row and id.
        const scrapeId = input.documentId ?? randomUUID();
        const sourceUrl = input.sourceUrl ?? input.url;
        const outcome = await scrapeUrl(
          { url: input.url, sourceUrl, options: input.options, scrapeId, deadline: input.deadline, signal },
          deps,
        );
        const creditsUsed = pageCredits({ succeeded: true });
        outcome.document.metadata.creditsUsed = creditsUsed;
        const stored = await upsertDocument(
          deps.db,
          completedDocumentRow({
            id: scrapeId,
            jobId: input.jobId,
            teamId: input.teamId,
            url: sourceUrl,
            urlKey: urlKey(normalizeUrl(input.url, { ignoreQueryParameters: false, deduplicateSimilarURLs: false })),
            document: outcome.document,
            creditsUsed,
          }),
        );
        return { documentId: stored.id, statusCode: outcome.statusCode, creditsUsed };
      });
    } catch (err) {
      if (Context.current().cancellationSignal.aborted) throw err;
      throw toApplicationFailure(err);
    }
  };
}
