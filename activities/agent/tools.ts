/**
 * The tools an agent run uses, over what Trawl already does: scrape (the pipeline's fetch stage,
 * cache and threat protection included), extract (a scrape plus the `json` format's model
 * extraction), map (the map's collector) and search (the configured provider). Each returns text
 * for the transcript and what it costs, at the endpoints' rates.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { mapOptionsShape } from '../../contracts/map-options.js';
import { resolveOutputs } from '../../contracts/page-outputs.js';
import { scrapeOptionsSchema, type ThreatProtectionOverride } from '../../contracts/scrape-options.js';
import { CREDIT_COSTS, pageCredits } from '../../lib/credits.js';
import type { FetchTool } from '../../llm/agent-step.js';
import { extractJson } from '../../llm/page-features.js';
import type { ActivityDeps } from '../deps.js';
import { markdownOf, modelFor } from '../page/enrich/model.js';
import { searchProviderOf } from '../search/providers.js';
import { createSiteMapper } from '../map-site.js';
import { fetchPage } from '../page/fetch.js';
import type { RobotsLookup } from '../site/site-rules.js';
import { pageThreatGate } from '../threat/gate.js';

export interface ToolCall {
  runId: string;
  teamId: string;
  tool: FetchTool;
  url?: string;
  query?: string;
  /** extract: what to pull out of the page. */
  prompt?: string;
  threatProtection?: ThreatProtectionOverride;
  signal: AbortSignal;
}

export interface ToolOutcome {
  /** For the transcript the model reads next (cut to a budget there). */
  text: string;
  /** A line for the trace. */
  summary: string;
  credits: number;
}

/** Most characters of a scraped page kept for the transcript. */
const PAGE_TEXT_LIMIT = 20_000;
const TOOL_TIMEOUT_MS = 60_000;
const MAP_LINKS = 100;

export function createAgentTools(deps: ActivityDeps, robotsFor: RobotsLookup) {
  const collect = createSiteMapper(deps, robotsFor);
  const search = searchProviderOf(deps);

  return async function runTool(call: ToolCall): Promise<ToolOutcome> {
    const deadline = Date.now() + TOOL_TIMEOUT_MS;
    if (call.tool === 'search') {
      const { results } = await search.search({ teamId: call.teamId, query: call.query ?? '', source: 'web', limit: 10, categories: [], signal: call.signal });
      const lines = results.map((r) => `- ${r.url} | ${r.title}${'description' in r && r.description ? ` | ${r.description}` : ''}`);
      return {
        text: lines.join('\n') || 'No results.',
        summary: `${results.length} result(s)`,
        credits: CREDIT_COSTS.searchPerTenResults * Math.ceil(results.length / 10),
      };
    }
    const url = call.url ?? '';
    if (call.tool === 'map') {
      const threat = await pageThreatGate(deps, call.teamId, call.threatProtection);
      await threat?.check(url);
      const options = z.object(mapOptionsShape).parse({ limit: MAP_LINKS });
      const { links } = await collect({ jobId: call.runId, teamId: call.teamId, url, options, deadline }, call.signal);
      return { text: links.map((l) => `- ${l.url}${l.title ? ` | ${l.title}` : ''}`).join('\n') || 'No links found.', summary: `${links.length} link(s)`, credits: pageCredits({ succeeded: true, threatScannedUrls: threat?.scanned }) };
    }
    const options = scrapeOptionsSchema.parse({ formats: ['markdown'] });
    const threat = await pageThreatGate(deps, call.teamId, call.threatProtection);
    await threat?.check(url);
    const { outcome } = await fetchPage(
      { url, sourceUrl: url, options, outputs: resolveOutputs(options.formats), scrapeId: randomUUID(), deadline, signal: call.signal, checkUrl: threat?.check },
      deps,
      { teamId: call.teamId, jobId: call.runId, cacheReads: true },
    );
    const markdown = markdownOf(outcome);
    const pageCost = pageCredits({ succeeded: true, pdf: outcome.pdf, threatScannedUrls: threat?.scanned });
    if (call.tool === 'extract') {
      const model = modelFor(deps, { teamId: call.teamId, jobId: call.runId }, 'agent');
      const { value } = await extractJson(model, { markdown, prompt: call.prompt, signal: call.signal });
      const json = JSON.stringify(value);
      return { text: `(HTTP ${outcome.statusCode})\n${json.slice(0, PAGE_TEXT_LIMIT)}`, summary: `HTTP ${outcome.statusCode}, ${json.length} characters of JSON`, credits: pageCost + CREDIT_COSTS.jsonFormat };
    }
    return {
      text: `(HTTP ${outcome.statusCode})\n${markdown.slice(0, PAGE_TEXT_LIMIT)}`,
      summary: `HTTP ${outcome.statusCode}, ${markdown.length} characters`,
      credits: pageCost,
    };
  };
}

/** Under strictConstrainToURLs: the URL is one of the run's URLs or a page below one. */
export function allowedUrl(url: string, allowed: readonly string[]): boolean {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return false;
  }
  return allowed.some((raw) => {
    try {
      const base = new URL(raw);
      const prefix = base.pathname.endsWith('/') ? base.pathname : `${base.pathname}/`;
      return target.origin === base.origin && (target.pathname === base.pathname || target.pathname.startsWith(prefix) || base.pathname === '/');
    } catch {
      return false;
    }
  });
}
