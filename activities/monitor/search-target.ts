/**
 * A monitor's search target (Firecrawl's web-scale monitoring): each check runs the target's
 * queries through the search provider, keeps the results that pass its domain filters, merges
 * them by URL, and reports each as `new` unless the target's previous check already had it
 * (`same`). Discovery, not diffing: nothing is scraped. Charged at search's price.
 */
import { previousCheckPages } from '../../db/repositories/monitors.js';
import type { ComparedPage } from '../../lib/monitor/check-pages.js';
import { searchCredits, type SearchPlan } from '../../lib/monitor/plan.js';
import { parseTbs } from '../../lib/search/tbs.js';
import { exactPageKey } from '../../lib/url/normalize.js';
import { atActivityBoundary } from '../boundary.js';
import type { ActivityDeps } from '../deps.js';
import { withPageSignal } from '../page/signal.js';
import { chargeWith, requireCredits } from '../page/team-budget.js';
import { passesDomainFilters } from '../search/provider.js';
import { searchProviderOf } from '../search/providers/registry.js';
import { jobIdFor } from './ids.js';

export interface MonitorSearchInput {
  monitorId: string;
  checkId: string;
  teamId: string;
  targetId: string;
  plan: SearchPlan;
}

export interface MonitorSearchResult {
  targetId: string;
  pages: ComparedPage[];
  credits: number;
}

const SEARCH_TIMEOUT_MS = 60_000;
/** Descriptions travel back through Temporal for judging: a snippet, not a page. */
const MAX_SNIPPET = 500;

export function createMonitorSearchActivity(deps: ActivityDeps) {
  const provider = searchProviderOf(deps);
  return async function runMonitorSearch(input: MonitorSearchInput): Promise<MonitorSearchResult> {
    return atActivityBoundary(() => withPageSignal(Date.now() + SEARCH_TIMEOUT_MS, (signal) => search(input, signal)));
  };

  async function search(input: MonitorSearchInput, signal: AbortSignal): Promise<MonitorSearchResult> {
    const { plan } = input;
    const budget = await requireCredits(deps.db, input.teamId);
    const found = new Map<string, { url: string; snippet: string }>();
    for (const query of plan.queries) {
      const { results } = await provider.search({
        teamId: input.teamId,
        query,
        source: 'web',
        limit: plan.maxResults,
        categories: [],
        range: parseTbs(plan.tbs, new Date()),
        includeDomains: plan.includeDomains,
        excludeDomains: plan.excludeDomains,
        signal,
      });
      for (const r of results) {
        if (!passesDomainFilters(r.url, plan)) continue;
        const key = exactPageKey(r.url);
        const description = 'description' in r ? r.description : '';
        if (!found.has(key)) found.set(key, { url: r.url, snippet: `${r.title}\n${description}`.slice(0, MAX_SNIPPET) });
      }
    }
    const seen = new Set((await previousCheckPages(deps.db, input.monitorId, input.targetId, input.checkId)).map((p) => p.url_key));
    const credits = Math.min(searchCredits(plan.queries.length, plan.maxResults), searchCredits(1, found.size));
    const jobId = jobIdFor(input.checkId, input.targetId);
    const charge = { teamId: input.teamId, jobId, chargeKey: `monitor-search:${input.checkId}:${input.targetId}`, reason: 'monitor:search', credits };
    await chargeWith(deps.db, budget.plan, charge, async () => undefined);
    const pages: ComparedPage[] = [...found].map(([key, r]) => ({
      targetId: input.targetId,
      url: r.url,
      urlKey: key,
      status: seen.has(key) ? 'same' : 'new',
      previousScrapeId: null,
      currentScrapeId: null,
      statusCode: null,
      error: null,
      diff: null,
      snippet: r.snippet,
    }));
    return { targetId: input.targetId, pages, credits };
  }
}
