/**
 * Every activity the workers register. To add one: write `activities/<name>.ts` exporting
 * `create<Name>Activity(deps)`, add it here, and call it from a workflow through a proxy in
 * workflows/activities.ts.
 */
import { createAgentActivities } from './agent/run.js';
import { createExecuteInSessionActivity } from './browser/execute.js';
import { createBrowserSessionActivities } from './browser/session.js';
import { createCrawlPageActivity } from './crawl-page.js';
import { createCrawlSliceActivity } from './crawl-slice.js';
import { createDeliverWebhookActivity } from './deliver-webhook.js';
import type { ActivityDeps } from './deps.js';
import {
  createClaimPagesActivity,
  createFinishJobActivity,
  createRecordPageFailureActivity,
} from './frontier-bookkeeping.js';
import { createExpandExtractUrlsActivity, createMergeExtractionActivity } from './extract.js';
import { createMapSiteActivity } from './map.js';
import { createMonitorCheckActivities } from './monitor/check.js';
import { createMonitorEmailActivity } from './monitor/email.js';
import { createMonitorSearchActivity } from './monitor/search-target.js';
import { createPreviewCrawlParamsActivity } from './preview-crawl-params.js';
import { createDeleteZdrHistoriesActivity, createPurgeExpiredActivity } from './purge-expired.js';
import { createScrapePageActivity } from './scrape-page.js';
import { createRunSearchActivity } from './search.js';
import { createRobotsLookup } from './site/site-rules.js';
import { createStartCrawlActivity } from './start-crawl.js';

export type { ActivityDeps } from './deps.js';

export function createActivities(deps: ActivityDeps) {
  const robotsFor = createRobotsLookup(deps);
  return {
    scrapePage: createScrapePageActivity(deps),
    startCrawl: createStartCrawlActivity(deps, robotsFor),
    claimPages: createClaimPagesActivity(deps),
    crawlPage: createCrawlPageActivity(deps, robotsFor),
    crawlSlice: createCrawlSliceActivity(deps, robotsFor),
    recordPageFailure: createRecordPageFailureActivity(deps),
    finishJob: createFinishJobActivity(deps),
    deliverWebhook: createDeliverWebhookActivity(deps),
    mapSite: createMapSiteActivity(deps, robotsFor),
    purgeExpired: createPurgeExpiredActivity(deps),
    deleteZdrHistories: createDeleteZdrHistoriesActivity(),
    previewCrawlParams: createPreviewCrawlParamsActivity(deps),
    expandExtractUrls: createExpandExtractUrlsActivity(deps, robotsFor),
    mergeExtractionResults: createMergeExtractionActivity(deps),
    runSearch: createRunSearchActivity(deps),
    ...createAgentActivities(deps, robotsFor),
    ...createMonitorCheckActivities(deps),
    runMonitorSearch: createMonitorSearchActivity(deps),
    sendMonitorEmail: createMonitorEmailActivity(deps),
    ...createBrowserSessionActivities(deps),
    executeInBrowserSession: createExecuteInSessionActivity(deps),
  };
}

export type TrawlActivities = ReturnType<typeof createActivities>;
