/**
 * Trawl against a Crawlee crawler on one variant of the bench site: the same start page, the same
 * page limit, the same concurrency cap, both discovering pages through links (no sitemap). Runs
 * alternate which side goes first, so drifting machine load falls on both; each run's ratio uses
 * the two crawls of that run.
 */
import { loadavg } from 'node:os';
import { runCrawlee } from '../peer/run-crawlee.js';
import { childrenCpuSeconds, chromiumBelow, cpuSeconds, stillRunning, treeCpuSeconds } from '../process-stats.js';
import type { ProcessEntry } from '../../scripts/process-tree.js';
import type { BenchSettings, Scenario, ScenarioResult } from '../scenario.js';
import { startBenchSite } from '../site/server.js';
import type { SiteVariant } from '../site/article.js';
import { startBenchStack } from '../trawl/bench-stack.js';
import { timedCrawl } from '../trawl/timed-crawl.js';
import { describeHistory, historyStats } from '../trawl/workflow-history.js';
import { stackProfiler } from './profiling.js';

export interface CrawlComparison {
  name: string;
  description: string;
  variant: SiteVariant;
  peer: 'cheerio' | 'playwright';
  defaultPages: number;
  concurrency: number;
}

export function crawlComparison(spec: CrawlComparison): Scenario {
  return {
    name: spec.name,
    description: spec.description,
    run: (settings) => runComparison(spec, settings),
  };
}

async function runComparison(spec: CrawlComparison, settings: BenchSettings): Promise<ScenarioResult> {
  const { log } = settings;
  const pages = settings.pages ?? spec.defaultPages;
  const site = await startBenchSite({ pages, prerender: [spec.variant] });
  const profiler = stackProfiler(settings.profile);
  const bench = await startBenchStack({ env: profiler.env });
  const worker = bench.stack.workers[0]!;
  const apiPid = bench.apiPid();
  const startUrl = site.url(spec.variant, 0);
  const trawlRates: number[] = [];
  const peerRates: number[] = [];
  const trawlCpu: number[] = [];
  const peerCpu: number[] = [];
  const notes: string[] = [];
  const loads: number[] = [];
  const chromiumSeen: ProcessEntry[] = [];
  let trawlPages = 0;
  let lastWorkflowId = '';
  let lastPages = 0;
  let cpuSplit = '';
  try {
    // Warm-up, not timed: the worker's JIT, connection pools and (for JS pages) its browser.
    trawlPages += (await timedCrawl(bench, { startUrl, limit: Math.min(20, pages), maxConcurrency: spec.concurrency })).pages;
    for (let run = 0; run < settings.runs; run++) {
      const sides = [
        async () => {
          loads.push(loadavg()[0]!);
          const cpu = () => ({ all: childrenCpuSeconds(), worker: cpuSeconds(worker.pid, true), tree: treeCpuSeconds(worker.pid) });
          const before = cpu();
          const crawl = await timedCrawl(bench, { startUrl, limit: pages, maxConcurrency: spec.concurrency });
          const after = cpu();
          const perPage = (seconds: number) => `${((1000 * seconds) / crawl.pages).toFixed(1)} ms`;
          trawlCpu.push((1000 * (after.all - before.all)) / crawl.pages);
          const workerNode = after.worker - before.worker;
          const chromium = after.tree - before.tree - workerNode;
          cpuSplit = `Trawl CPU per page, last run: worker Node ${perPage(workerNode)}, its Chromium ${perPage(chromium)}, Temporal server and API ${perPage(after.all - before.all - workerNode - chromium)}`;
          trawlPages += crawl.pages;
          lastWorkflowId = crawl.workflowId;
          lastPages = crawl.pages;
          chromiumSeen.push(...chromiumBelow(worker.pid));
          trawlRates.push(crawl.pages / crawl.seconds);
          log(`  run ${run + 1}: trawl ${crawl.pages} pages in ${crawl.seconds.toFixed(1)} s = ${(crawl.pages / crawl.seconds).toFixed(1)} pages/s`);
        },
        async () => {
          loads.push(loadavg()[0]!);
          const peer = await runCrawlee({ crawler: spec.peer, startUrl, maxPages: pages, concurrency: spec.concurrency }, log);
          peerRates.push(peer.pages / peer.seconds);
          peerCpu.push((1000 * peer.cpuSeconds) / peer.pages);
          log(`  run ${run + 1}: crawlee ${peer.pages} pages in ${peer.seconds.toFixed(1)} s = ${(peer.pages / peer.seconds).toFixed(1)} pages/s`);
        },
      ];
      if (run % 2 === 1) sides.reverse();
      for (const side of sides) await side();
    }
    const history = await historyStats(bench.temporal, lastWorkflowId);
    notes.push(`Temporal, last Trawl crawl: ${describeHistory(history, lastPages)}`);
    notes.push(cpuSplit);
    if (spec.variant === 'js') {
      notes.push(`Chromium processes in the worker's tree after the last crawl: ${chromiumBelow(worker.pid).length}`);
    }
  } catch (err) {
    log(bench.tail());
    throw err;
  } finally {
    await bench.stop();
    await site.close();
  }
  if (spec.variant === 'js') {
    const left = new Map(stillRunning(chromiumSeen).map((p) => [p.pid, p]));
    notes.push(`Chromium processes of the worker still running after the stack stopped: ${left.size}`);
  }
  notes.push(
    `${pages} pages per crawl, concurrency ${spec.concurrency} on both sides; 1-min load average at run starts ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`,
  );
  notes.push(
    ...profiler.report(
      [
        { label: 'worker CPU profile', pid: worker.pid },
        { label: 'API CPU profile', pid: apiPid },
      ],
      trawlPages,
    ),
  );
  const ratios = trawlRates.map((rate, i) => rate / peerRates[i]!);
  return {
    rows: [
      { metric: 'Trawl', unit: 'pages/s', values: trawlRates },
      { metric: `Crawlee ${spec.peer === 'cheerio' ? 'CheerioCrawler' : 'PlaywrightCrawler'}`, unit: 'pages/s', values: peerRates },
      { metric: 'Trawl ÷ Crawlee', unit: '×', values: ratios, target: { text: '≥ 1.0', ok: (m) => m >= 1 } },
      // CPU per page barely moves with the machine's load, which the wall-clock rates do.
      { metric: 'Trawl CPU per page (Temporal, API, worker, Chromium; not Postgres)', unit: 'ms', values: trawlCpu },
      { metric: 'Crawlee CPU per page (its process and Chromium)', unit: 'ms', values: peerCpu },
    ],
    notes,
  };
}
