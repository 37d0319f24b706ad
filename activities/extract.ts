/**
 * The two steps of an extract job around its page loop (workflows/extract.ts): expanding `/*`
 * URLs into pages, as a map finds them, and merging the pages' answers once they are settled.
 * Each page's own answer comes from the `json` enrich step, so pages of an extract are scraped,
 * cached, charged and listed in errors like any batch page.
 */
import { z } from 'zod';
import { mapOptionsShape } from '../contracts/map-options.js';
import type { ThreatProtectionOverride } from '../contracts/scrape-options.js';
import { addBatchPages, listPageAnswers } from '../db/repositories/batch.js';
import { storeJobResult } from '../db/repositories/jobs.js';
import { NonRetryablePageError, TrawlError } from '../lib/errors.js';
import { compileUrlGlob } from '../lib/patterns/glob.js';
import { normalizeUrl, urlKey } from '../lib/url/normalize.js';
import { validatorFor, type JsonSchema } from '../llm/json-schema.js';
import { mergeExtraction } from '../llm/merge-extraction.js';
import { searchQueryFromPrompt } from '../llm/search-query.js';
import { atActivityBoundary } from './boundary.js';
import type { ActivityDeps } from './deps.js';
import { searchProviderOf } from './search/providers/registry.js';
import { createSiteMapper, type MapLink } from './site/mapper.js';
import { modelFor } from './page/enrich/model.js';
import { withPageSignal } from './page/signal.js';
import { pageThreatGate } from './threat/gate.js';
import type { RobotsLookup } from './site/site-rules.js';

export interface ExpandExtractUrlsInput {
  jobId: string;
  teamId: string;
  /** Absolute URLs holding `*`, e.g. `https://example.com/blog/*`. */
  globs: string[];
  /** Also read the pages a search for this prompt finds (no `urls`, or `enableWebSearch`). */
  searchPrompt?: string;
  /** Most pages to add, over all globs. */
  limit: number;
  includeSubdomains: boolean;
  ignoreSitemap: boolean;
  /** Epoch ms by which the expansion must be done. */
  deadline: number;
  /** The request's override of the team's threat protection: the pages mapped for a glob are fetched. */
  threatProtection?: ThreatProtectionOverride;
}

export interface ExpandExtractUrlsResult {
  added: number;
}

export interface MergeExtractionInput {
  jobId: string;
  /** The user's schema: the merged answer must match it. */
  schema?: JsonSchema;
}

/** What the job row keeps for GET /extract/{id}. */
export interface ExtractJobResult {
  data: unknown;
  sources: Record<string, string[]>;
}

export function createExpandExtractUrlsActivity(deps: ActivityDeps, robotsFor: RobotsLookup) {
  const collect = createSiteMapper(deps, robotsFor);
  const search = searchProviderOf(deps);
  return async function expandExtractUrls(input: ExpandExtractUrlsInput): Promise<ExpandExtractUrlsResult> {
    return atActivityBoundary(() => withPageSignal(input.deadline, (signal) => expand(input, signal)));
  };

  async function expand(input: ExpandExtractUrlsInput, signal: AbortSignal): Promise<ExpandExtractUrlsResult> {
      const pages = new Map<string, string>();
      const addPage = (url: string) => pages.set(urlKey(normalizeUrl(url, { ignoreQueryParameters: false, deduplicateSimilarURLs: true })), url);
      const threat = await pageThreatGate(deps, input.teamId, input.threatProtection);
      for (const glob of input.globs) {
        const base = glob.slice(0, glob.indexOf('*')).replace(/[^/]*$/, '');
        const options = z.object(mapOptionsShape).parse({
          sitemap: input.ignoreSitemap ? 'skip' : 'include',
          includeSubdomains: input.includeSubdomains,
          limit: Math.min(5000, input.limit * 50),
        });
        let links: MapLink[];
        try {
          await threat?.check(base);
          ({ links } = await collect({ jobId: input.jobId, teamId: input.teamId, url: base, options, deadline: input.deadline }, signal, threat?.check));
        } catch (err) {
          if (!(err instanceof TrawlError && err.code === 'THREAT_PROTECTION_BLOCKED')) throw err;
          // Not mapped: queued as the one page, which the pipeline refuses and lists in /errors.
          addPage(base);
          continue;
        }
        const matches = compileUrlGlob(glob, input.includeSubdomains);
        for (const { url } of links) {
          if (pages.size >= input.limit) break;
          if (matches(url)) addPage(url);
        }
      }
      if (input.searchPrompt) {
        const query = await searchQueryFromPrompt(modelFor(deps, { teamId: input.teamId, jobId: input.jobId }, 'extract-search'), input.searchPrompt, signal);
        const { results } = await search.search({ teamId: input.teamId, query, source: 'web', limit: input.limit, categories: [], signal });
        for (const { url } of results) addPage(url);
      }
      const added = await addBatchPages(deps.db, input.jobId, [...pages].map(([key, url]) => ({ url, urlKey: key })));
      return { added };
  }
}

export function createMergeExtractionActivity(deps: ActivityDeps) {
  return async function mergeExtractionResults(input: MergeExtractionInput): Promise<void> {
    return atActivityBoundary(async () => {
      const rows = await listPageAnswers(deps.db, input.jobId);
      const answered = rows.filter((r) => r.status === 'completed' && r.answer !== null);
      if (answered.length === 0) {
        const why = rows.find((r) => r.error)?.error;
        throw new NonRetryablePageError('EXTRACT_NO_PAGES', `No page could be read for extraction${why ? `: ${why}` : ''}`);
      }
      const merged = mergeExtraction(answered.map((r) => ({ url: r.url, answer: r.answer })));
      if (input.schema) {
        const validate = validatorFor(input.schema);
        if (!validate(merged.data)) {
          throw new NonRetryablePageError('LLM_OUTPUT_INVALID', `The merged answer of ${answered.length} page(s) does not match the schema: ${validate.errorsText()}`, {
            details: { errors: validate.errors },
          });
        }
      }
      const result: ExtractJobResult = merged;
      await storeJobResult(deps.db, input.jobId, { ...result });
    });
  };
}
