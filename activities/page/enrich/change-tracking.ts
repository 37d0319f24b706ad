/**
 * changeTracking: the fresh markdown compared with the team's previous snapshot of the same URL
 * and tag, and recorded as the next one (wire reference §2.10).
 */
import { findPreviousSnapshot, recordSnapshot } from '../../../db/repositories/change-history.js';
import { normalizeUrl, urlKey } from '../../../lib/url/normalize.js';
import { changeTracking } from '../../../scraper/change-tracking/change-tracking.js';
import type { EnrichStep } from '../enrich-step.js';

export const changeTrackingStep: EnrichStep = {
  name: 'changeTracking',
  appliesTo: (outputs) => outputs.changeTracking !== undefined,
  async run({ deps, owner, url, outputs, outcome }) {
    const tracked = outputs.changeTracking!;
    const key = {
      teamId: owner.teamId,
      urlKey: urlKey(normalizeUrl(url, { ignoreQueryParameters: false, deduplicateSimilarURLs: false })),
      tag: tracked.tag ?? '',
    };
    const markdown = typeof outcome.document.markdown === 'string' ? outcome.document.markdown : '';
    const seen = { markdown, statusCode: outcome.statusCode };
    const previous = await findPreviousSnapshot(deps.db, key, owner.jobId);
    outcome.document.changeTracking = changeTracking(previous, seen, tracked.modes);
    // A server error page is not the page's content: the next scrape compares with the last real one.
    if (outcome.statusCode < 500 && outcome.statusCode !== 429) await recordSnapshot(deps.db, key, owner.jobId, seen);
  },
};
