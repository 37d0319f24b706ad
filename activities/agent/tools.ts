/**
 * The tools an agent run uses, over what Trawl already does: scrape and extract are pages of the
 * page pipeline (activities/page/pipeline.ts) under the agent policy below, so they are admitted
 * as every page is (credits, threat protection, one of the team's concurrency slots), read the
 * cache, and are priced by the pipeline's own credit rules, extract through the `json` format's
 * enrich step. Map is the map's collector and search the configured provider. Each returns text
 * for the transcript and what it costs.
 */
import { z } from 'zod';
import { mapOptionsShape } from '../../contracts/map-options.js';
import { scrapeOptionsSchema, type ThreatProtectionOverride } from '../../contracts/scrape-options.js';
import { CREDIT_COSTS, pageCredits } from '../../lib/credits.js';
import type { FetchTool } from '../../llm/agent-step.js';
import type { ActivityDeps } from '../deps.js';
import { createSiteMapper } from '../site/mapper.js';
import { markdownOf } from '../page/enrich/model.js';
import { ENRICH_STEPS, type EnrichStep } from '../page/enrich/steps.js';
import { type NO_SLOT, runPage, type PagePolicy } from '../page/pipeline.js';
import { searchProviderOf } from '../search/providers/registry.js';
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
/**
 * A page waits this long inside its activity for one of the team's slots, as a crawl page does;
 * then its workflow waits on a durable timer and calls the tool again.
 */
const AGENT_SLOT_WAIT_MS = 3_000;

export function createAgentTools(deps: ActivityDeps, robotsFor: RobotsLookup, steps: readonly EnrichStep[] = ENRICH_STEPS) {
  const collect = createSiteMapper(deps, robotsFor);
  const search = searchProviderOf(deps);

  /** Resolves to NO_SLOT when a page found none of the team's concurrency slots free. */
  return async function runTool(call: ToolCall): Promise<ToolOutcome | typeof NO_SLOT> {
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
    const formats = call.tool === 'extract' ? ['markdown', { type: 'json', prompt: call.prompt }] : ['markdown'];
    const options = scrapeOptionsSchema.parse({ formats, threatProtection: call.threatProtection });
    const task = { teamId: call.teamId, jobId: call.runId, url, sourceUrl: url, options };
    return runPage(deps, steps, task, agentPagePolicy(call.tool, deadline));
  };
}

/**
 * An agent's page: it reads the team's cache, waits briefly for a slot, and persists nothing of
 * its own. Its text goes to the run's transcript, stored with its charge by the agentTool activity.
 */
function agentPagePolicy(tool: 'scrape' | 'extract', deadline: number): PagePolicy<ToolOutcome> {
  return {
    slotWaitMs: AGENT_SLOT_WAIT_MS,
    deadline: () => deadline,
    cacheReads: true,
    async persist({ outcome, creditsUsed }) {
      const status = `HTTP ${outcome.statusCode}`;
      if (tool === 'extract') {
        const json = JSON.stringify(outcome.document.json ?? null);
        return { text: `(${status})\n${json.slice(0, PAGE_TEXT_LIMIT)}`, summary: `${status}, ${json.length} characters of JSON`, credits: creditsUsed };
      }
      const markdown = markdownOf(outcome);
      return { text: `(${status})\n${markdown.slice(0, PAGE_TEXT_LIMIT)}`, summary: `${status}, ${markdown.length} characters`, credits: creditsUsed };
    },
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
