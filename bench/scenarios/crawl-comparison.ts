/**
 * Trawl against a Crawlee crawler and against the bare ceiling (bench/ceiling/bare-crawl.ts: our
 * own page work in one process, without the service) on one variant of the bench site: the same
 * start page, the same page limit, the same concurrency cap, all discovering pages through links
 * (no sitemap). Runs rotate which side goes first, so drifting machine load falls on all three;
 * each run's ratios use the crawls of that run.
 *
 * BENCH_PEER_DEFAULTS=1 also runs the peer with the set-up the bench used before it was tuned
 * (bench/peer/crawlee-crawl.ts says what changed), to show what the tuning is worth.
 */
import { loadavg } from 'node:os';
import { runCrawlee, runResultProcess } from '../peer/run-crawlee.js';
import type { PeerResult } from '../peer/peer-result.js';
import { childrenCpuSeconds, chromiumBelow, cpuGroupFor, cpuSeconds, postgresCpuSeconds, stillRunning, treeCpuSeconds } from '../process-stats.js';
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
  /** Trawl ÷ Crawlee (pages/s) the scenario aims at. */
  peerTarget: number;
  /** Trawl ÷ bare ceiling (pages/s) the scenario aims at. */
  ceilingTarget: number;
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
  // Before the warm-up launches the worker's browser, so every Chromium process is counted.
  const workerGroup = cpuGroupFor(worker.pid, 'worker');
  const apiPid = bench.apiPid();
  const startUrl = site.url(spec.variant, 0);
  const trawlRates: number[] = [];
  const trawlCpu: number[] = [];
  const peer = new SideFigures();
  const ceiling = new SideFigures();
  const peerDefaults = new SideFigures();
  const withDefaults = process.env.BENCH_PEER_DEFAULTS === '1';
  const peerName = `Crawlee ${spec.peer === 'cheerio' ? 'CheerioCrawler' : 'PlaywrightCrawler'}`;
  const notes: string[] = [];
  const loads: number[] = [];
  const chromiumSeen: ProcessEntry[] = [];
  let trawlPages = 0;
  let lastWorkflowId = '';
  let lastPages = 0;
  let cpuSplit = '';
  const postgresCpu: number[] = [];
  try {
    // Warm-up, not timed: the worker's JIT, connection pools and (for JS pages) its browser.
    trawlPages += (await timedCrawl(bench, { startUrl, limit: Math.min(20, pages), maxConcurrency: spec.concurrency })).pages;
    for (let run = 0; run < settings.runs; run++) {
      const sides = [
        async () => {
          loads.push(loadavg()[0]!);
          const cpu = () => {
            const tree = treeCpuSeconds(worker.pid);
            const workerTree = workerGroup?.seconds() ?? tree;
            return { all: childrenCpuSeconds() - tree + workerTree, worker: cpuSeconds(worker.pid, true), tree: workerTree };
          };
          const before = cpu();
          const postgresBefore = postgresCpuSeconds();
          const crawl = await timedCrawl(bench, { startUrl, limit: pages, maxConcurrency: spec.concurrency });
          const after = cpu();
          postgresCpu.push((1000 * (postgresCpuSeconds() - postgresBefore)) / crawl.pages);
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
          const result = await runCrawlee({ crawler: spec.peer, startUrl, maxPages: pages, concurrency: spec.concurrency }, log);
          log(`  run ${run + 1}: crawlee ${peer.add(result)}`);
        },
        async () => {
          loads.push(loadavg()[0]!);
          const args = [spec.variant, startUrl, String(pages), String(spec.concurrency)];
          const result = await runResultProcess('bare-crawl', 'bench/ceiling/bare-crawl.ts', args, log);
          log(`  run ${run + 1}: bare ceiling ${ceiling.add(result)}`);
        },
        ...(withDefaults
          ? [
              async () => {
                const result = await runCrawlee({ crawler: spec.peer, startUrl, maxPages: pages, concurrency: spec.concurrency, setup: 'defaults' }, log);
                log(`  run ${run + 1}: crawlee (old set-up) ${peerDefaults.add(result)}`);
              },
            ]
          : []),
      ];
      // Rotate the order, so each side goes first in turn.
      for (let i = 0; i < run % sides.length; i++) sides.push(sides.shift()!);
      for (const side of sides) await side();
    }
    const history = await historyStats(bench.temporal, lastWorkflowId);
    notes.push(`Temporal, last Trawl crawl: ${describeHistory(history, lastPages)}`);
    notes.push(cpuSplit);
    notes.push(
      workerGroup
        ? "The worker's CPU (its Node and Chromium) is counted through a cgroup, exited processes included"
        : "The worker's CPU is the sum over its process tree (no writable cgroup v2): the renderers of a browser retired during a run drop out of it",
      `The peer's and the ceiling's CPU (each process and its Chromium): ${countedByText([...peer.countedBy, ...ceiling.countedBy, ...peerDefaults.countedBy])}`,
    );
    if (spec.variant === 'js') {
      notes.push(`Chromium processes in the worker's tree after the last crawl: ${chromiumBelow(worker.pid).length}`);
    }
  } catch (err) {
    log(bench.tail());
    throw err;
  } finally {
    await bench.stop();
    workerGroup?.close();
    await site.close();
  }
  if (spec.variant === 'js') {
    const left = new Map(stillRunning(chromiumSeen).map((p) => [p.pid, p]));
    notes.push(`Chromium processes of the worker still running after the stack stopped: ${left.size}`);
  }
  notes.push(
    `${pages} pages per crawl, concurrency ${spec.concurrency} on every side; 1-min load average at run starts ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`,
    `Busy: the share of one core each side's own process (and its Chromium) used over its crawl's wall time, medians: ${peerName} ${peer.busyText()}, bare ceiling ${ceiling.busyText()}${withDefaults ? `, ${peerName} with the old set-up ${peerDefaults.busyText()}` : ''}. A side is held back by something other than CPU when this is well below what a spinning process gets on the machine at that moment (about 100 % idle, about 2/load of 200 % when loaded).`,
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
  return {
    rows: [
      { metric: 'Trawl', unit: 'pages/s', values: trawlRates },
      { metric: peerName, unit: 'pages/s', values: peer.rates },
      ...(withDefaults ? [{ metric: `${peerName}, old set-up`, unit: 'pages/s', values: peerDefaults.rates }] : []),
      { metric: 'bare ceiling (our page work in one process)', unit: 'pages/s', values: ceiling.rates },
      {
        metric: 'Trawl ÷ Crawlee',
        unit: '×',
        values: trawlRates.map((rate, i) => rate / peer.rates[i]!),
        target: { text: `≥ ${spec.peerTarget}`, ok: (m) => m >= spec.peerTarget },
      },
      {
        metric: 'Trawl ÷ bare ceiling',
        unit: '×',
        values: trawlRates.map((rate, i) => rate / ceiling.rates[i]!),
        target: { text: `≥ ${spec.ceilingTarget}`, ok: (m) => m >= spec.ceilingTarget },
      },
      { metric: 'Crawlee ÷ bare ceiling', unit: '×', values: peer.rates.map((rate, i) => rate / ceiling.rates[i]!) },
      // CPU per page barely moves with the machine's load, which the wall-clock rates do.
      { metric: 'Trawl CPU per page (Temporal, API, worker, Chromium; not Postgres)', unit: 'ms', values: trawlCpu },
      // The whole local server over Trawl's crawl: on a quiet machine, Trawl's statements alone.
      { metric: 'Postgres CPU per Trawl page (the whole local server)', unit: 'ms', values: postgresCpu },
      { metric: 'Crawlee CPU per page (its process and Chromium)', unit: 'ms', values: peer.cpuPerPage },
      { metric: 'bare ceiling CPU per page', unit: 'ms', values: ceiling.cpuPerPage },
    ],
    notes,
  };
}

/** One side's figures over the runs, from the result lines of its crawl processes. */
class SideFigures {
  readonly rates: number[] = [];
  readonly cpuPerPage: number[] = [];
  readonly busy: number[] = [];
  readonly countedBy = new Set<PeerResult['cpuCountedBy']>();

  /** Records one crawl; returns its one-line summary for the log. */
  add(result: PeerResult): string {
    this.countedBy.add(result.cpuCountedBy);
    this.rates.push(result.pages / result.seconds);
    this.cpuPerPage.push((1000 * result.cpuSeconds) / result.pages);
    this.busy.push((100 * result.cpuSeconds) / result.seconds);
    return `${result.pages} pages in ${result.seconds.toFixed(1)} s = ${this.rates.at(-1)!.toFixed(1)} pages/s, ${this.cpuPerPage.at(-1)!.toFixed(1)} ms CPU/page, busy ${this.busy.at(-1)!.toFixed(0)} %`;
  }

  busyText(): string {
    if (this.busy.length === 0) return 'not run';
    const sorted = [...this.busy].sort((a, b) => a - b);
    return `${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)} %`;
  }
}

function countedByText(ways: readonly PeerResult['cpuCountedBy'][]): string {
  return ways.includes('tree')
    ? 'summed over the process tree in some runs (no writable cgroup v2), which loses the renderers of a browser retired during the crawl'
    : 'counted through a cgroup of its own, exited processes included, as the worker is';
}
