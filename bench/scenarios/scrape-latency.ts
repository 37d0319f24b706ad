/**
 * Latency of single scrapes: sequential POST /v2/scrape calls, each for a different page of the
 * site, against the same scrapes done in the bench process with the worker's own code (scrapeUrl:
 * fetch, engine choice, our conversion; for JS pages the worker's browser set-up, its guard proxy
 * and content blocker included: bench/trawl/worker-browser.ts). The difference is what the service
 * adds: HTTP to the API, the job row, the Temporal workflow and activity, storing and reading back
 * the Document.
 */
import { loadavg } from 'node:os';
import { resolveOutputs } from '../../contracts/page-outputs.js';
import { scrapeOptionsSchema } from '../../contracts/scrape-options.js';
import { scrapeUrl } from '../../scraper/scrape.js';
import type { BenchSettings, Scenario, ScenarioResult } from '../scenario.js';
import type { SiteVariant } from '../site/article.js';
import { startBenchSite } from '../site/server.js';
import { percentile } from '../stats.js';
import { scrape } from '../trawl/api-client.js';
import { startBenchStack } from '../trawl/bench-stack.js';
import { startWorkerBrowser } from '../trawl/worker-browser.js';
import { describeTimelines, scrapeTimeline, type ClientCall } from '../trawl/scrape-timeline.js';
import { stackProfiler } from './profiling.js';

const WARM_UP_CALLS = 10;
/** Scrapes of the last run whose Temporal histories are read for the timeline. */
const TIMELINE_SAMPLE = 30;

export interface ScrapeLatency {
  name: string;
  variant: SiteVariant;
  /** Calls per run unless BENCH_CALLS says otherwise. */
  defaultCalls: number;
  overheadTargetMs?: number;
  /** The API's p50 itself, where a target is set on it (issue #16: a browser scrape's p50). */
  apiP50TargetMs?: number;
}

export function scrapeLatency(spec: ScrapeLatency): Scenario {
  return {
    name: spec.name,
    description: `${spec.defaultCalls} sequential POST /v2/scrape calls (formats: markdown, maxAge: 0) for different ${spec.variant === 'js' ? 'JavaScript-rendered' : 'static'} pages, timed at the client; the same pages scraped in-process with scrapeUrl() give the work itself, and the difference is the service's overhead.`,
    run: (settings) => run(settings, spec),
  };
}

async function run(settings: BenchSettings, spec: ScrapeLatency): Promise<ScenarioResult> {
  const { variant, overheadTargetMs, apiP50TargetMs } = spec;
  const calls = settings.calls ?? spec.defaultCalls;
  const pages = Math.max(calls + WARM_UP_CALLS, 50);
  const site = await startBenchSite({ pages, prerender: [variant] });
  const profiler = stackProfiler(settings.profile);
  const bench = await startBenchStack({ env: profiler.env });
  const workerPid = bench.stack.workers[0]!.pid;
  const apiPid = bench.apiPid();
  const worker = await startWorkerBrowser();
  const { browser } = worker;
  const options = scrapeOptionsSchema.parse({ formats: ['markdown'], maxAge: 0 });
  const url = (i: number) => site.url(variant, 1 + (i % (pages - 1)));

  const apiCalls: ClientCall[] = [];
  const viaApi = async (i: number) => {
    const t0 = performance.now();
    const sentAt = Date.now();
    // maxAge 0: runs repeat pages, and a page-cache hit would skip the very work being compared.
    const doc = await scrape(bench, { url: url(i), formats: ['markdown'], maxAge: 0 });
    if (typeof doc.markdown !== 'string' || doc.markdown.length < 1_000) throw new Error(`short markdown for ${url(i)}`);
    // The API names the scrape's workflow after its job id, which the Document carries as scrapeId.
    apiCalls.push({ workflowId: `scrape-${String((doc.metadata as Record<string, unknown>).scrapeId)}`, sentAt, receivedAt: Date.now() });
    return performance.now() - t0;
  };
  const inProcess = async (i: number) => {
    const t0 = performance.now();
    const outcome = await scrapeUrl(
      {
        url: url(i),
        sourceUrl: url(i),
        options,
        outputs: resolveOutputs(options.formats),
        scrapeId: `bench-${i}`,
        deadline: Date.now() + options.timeout,
        signal: AbortSignal.timeout(options.timeout),
      },
      { browser, allowPrivateNetwork: true },
    );
    if (String(outcome.document.markdown ?? '').length < 1_000) throw new Error(`short markdown for ${url(i)}`);
    return performance.now() - t0;
  };

  const api = { p50: [] as number[], p95: [] as number[] };
  const local = { p50: [] as number[], p95: [] as number[] };
  const loads: number[] = [];
  const notes: string[] = [];
  try {
    for (let i = 0; i < WARM_UP_CALLS; i++) {
      await viaApi(calls + i);
      await inProcess(calls + i);
    }
    for (let r = 0; r < settings.runs; r++) {
      loads.push(loadavg()[0]!);
      const apiTimes: number[] = [];
      const localTimes: number[] = [];
      for (let i = 0; i < calls; i++) apiTimes.push(await viaApi(i));
      for (let i = 0; i < calls; i++) localTimes.push(await inProcess(i));
      api.p50.push(percentile(apiTimes, 50));
      api.p95.push(percentile(apiTimes, 95));
      local.p50.push(percentile(localTimes, 50));
      local.p95.push(percentile(localTimes, 95));
      if (r === settings.runs - 1) {
        const sample = apiCalls.slice(-calls).slice(0, TIMELINE_SAMPLE);
        notes.push(describeTimelines(await Promise.all(sample.map((call) => scrapeTimeline(bench.temporal, call)))));
      }
      settings.log(
        `  run ${r + 1}: API p50 ${api.p50.at(-1)!.toFixed(1)} ms p95 ${api.p95.at(-1)!.toFixed(1)} ms; in-process p50 ${local.p50.at(-1)!.toFixed(1)} ms p95 ${local.p95.at(-1)!.toFixed(1)} ms`,
      );
    }
  } catch (err) {
    settings.log(bench.tail());
    throw err;
  } finally {
    await worker.close();
    await bench.stop();
    await site.close();
  }
  const atMost = (ms: number | undefined) => (ms === undefined ? undefined : { text: `≤ ${ms} ms`, ok: (m: number) => m <= ms });
  return {
    rows: [
      { metric: 'API p50', unit: 'ms', values: api.p50, target: atMost(apiP50TargetMs) },
      { metric: 'API p95', unit: 'ms', values: api.p95 },
      { metric: 'in-process p50', unit: 'ms', values: local.p50 },
      { metric: 'in-process p95', unit: 'ms', values: local.p95 },
      { metric: 'overhead p50 (API − in-process)', unit: 'ms', values: api.p50.map((v, i) => v - local.p50[i]!), target: atMost(overheadTargetMs) },
      { metric: 'overhead p95 (API − in-process)', unit: 'ms', values: api.p95.map((v, i) => v - local.p95[i]!) },
    ],
    notes: [
      ...notes,
      `${calls} sequential calls per run, each a different page; 1-min load average at run starts ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`,
      ...profiler.report(
        [
          { label: 'worker CPU profile', pid: workerPid },
          { label: 'API CPU profile', pid: apiPid },
        ],
        (settings.runs + 1) * calls,
      ),
    ],
  };
}
