/**
 * Every activity the workers register. To add one: write `activities/<name>.ts` exporting
 * `create<Name>Activity(deps)`, add it here, and call it from a workflow through a proxy in
 * workflows/activities.ts.
 */
import type { ActivityDeps } from './deps.js';
import { createScrapePageActivity } from './scrape-page.js';

export type { ActivityDeps } from './deps.js';

export function createActivities(deps: ActivityDeps) {
  return {
    scrapePage: createScrapePageActivity(deps),
  };
}

export type TrawlActivities = ReturnType<typeof createActivities>;
