/**
 * The search of a search job (workflows/search.ts): ask the provider for each source, keep the
 * results with the job, charge for them, and put the pages to scrape in the job's frontier. The
 * scrapes themselves are the job's page loop, as a batch's are.
 */
import { addBatchPages } from '../db/repositories/batch.js';
import { notifyResultStored } from '../db/repositories/documents.js';
import { completeJobWithResult, storeJobResult } from '../db/repositories/jobs.js';
import { CREDIT_COSTS } from '../lib/credits.js';
import { NonRetryablePageError } from '../lib/errors.js';
import { parseTbs } from '../lib/search/tbs.js';
import { exactPageKey } from '../lib/url/normalize.js';
import { atActivityBoundary } from './boundary.js';
import type { ActivityDeps } from './deps.js';
import { searchProviderOf } from './search/providers/registry.js';
import { withPageSignal } from './page/signal.js';
import { chargeWith, requireCredits } from './page/team-budget.js';
import { passesDomainFilters, type SearchCategory, type SearchResult, type SearchSource } from './search/provider.js';

export interface SearchSourceRequest {
  type: SearchSource;
  tbs?: string;
  lang?: string;
  country?: string;
  location?: string;
}

export interface RunSearchInput {
  jobId: string;
  teamId: string;
  query: string;
  /** Per source. */
  limit: number;
  sources: SearchSourceRequest[];
  categories: SearchCategory[];
  includeDomains?: string[];
  excludeDomains?: string[];
  highlights?: boolean;
  safe?: boolean;
  /**
   * Put the web and news results in the frontier to be scraped by the job's page loop; without
   * it the job is complete when the results are stored.
   */
  scrape: boolean;
  /** A zero-data-retention search: Firecrawl's ZDR search price. */
  zeroDataRetention?: boolean;
  /** Epoch ms: the request's one deadline. */
  deadline: number;
}

export interface RunSearchResult {
  results: number;
  queued: number;
}

/** What the job row keeps for the API to answer with. */
export interface SearchJobResult {
  sources: Partial<Record<SearchSource, SearchResult[]>>;
  /** The charge for the results themselves; scraped pages are charged with their documents. */
  searchCredits: number;
  warning?: string;
}

export function createRunSearchActivity(deps: ActivityDeps) {
  const provider = searchProviderOf(deps);
  return async function runSearch(input: RunSearchInput): Promise<RunSearchResult> {
    return atActivityBoundary(
      () => withPageSignal(input.deadline, (signal) => search(input, signal)),
      // The provider was cut off by the request's deadline, not broken.
      (err) => (Date.now() >= input.deadline ? new NonRetryablePageError('JOB_TIMEOUT', 'The search did not finish within its timeout') : err),
    );
  };

  async function search(input: RunSearchInput, signal: AbortSignal): Promise<RunSearchResult> {
    const budget = await requireCredits(deps.db, input.teamId);
    const sources: SearchJobResult['sources'] = {};
    const warnings = new Set<string>();
    await Promise.all(
      input.sources.map(async (source) => {
        const { results, warning } = await provider.search({
          teamId: input.teamId,
          query: input.query,
          source: source.type,
          limit: input.limit,
          categories: input.categories,
          range: parseTbs(source.tbs, new Date()),
          lang: source.lang,
          country: source.country,
          location: source.location,
          includeDomains: input.includeDomains,
          excludeDomains: input.excludeDomains,
          highlights: input.highlights,
          safe: input.safe,
          signal,
        });
        // Providers that cannot filter by domain (SearXNG) are filtered here; the index already was.
        sources[source.type] = results.filter((r) => passesDomainFilters(r.url, input)).map((r, i) => ({ ...r, position: i + 1 }));
        if (warning) warnings.add(warning);
      }),
    );
    const count = Object.values(sources).reduce((n, list) => n + list.length, 0);
    const perTen = input.zeroDataRetention ? CREDIT_COSTS.zdrSearchPerTenResults : CREDIT_COSTS.searchPerTenResults;
    const searchCredits = perTen * Math.ceil(count / 10);
    const result: SearchJobResult = { sources, searchCredits, ...(warnings.size > 0 && { warning: [...warnings].join(' ') }) };
    const toScrape = input.scrape ? [...(sources.web ?? []), ...(sources.news ?? [])] : [];
    const pages = new Map(toScrape.map((r) => [exactPageKey(r.url), r.url]));
    const charge = { teamId: input.teamId, jobId: input.jobId, chargeKey: `search:${input.jobId}`, reason: 'search', credits: searchCredits };
    await chargeWith(deps.db, budget.plan, charge, async (trx) => {
      // Nothing to scrape: the search is the whole job, completed with its result here, and the
      // waiting API told so at the commit, before the workflow reports back through Temporal.
      if (!input.scrape) {
        await completeJobWithResult(trx, input.jobId, { ...result });
        await notifyResultStored(trx, input.jobId);
      } else {
        await storeJobResult(trx, input.jobId, { ...result });
        await addBatchPages(trx, input.jobId, [...pages].map(([key, url]) => ({ url, urlKey: key })));
      }
    });
    return { results: count, queued: pages.size };
  }
}
