/**
 * JavaScript crawl with one worker, then with a second worker added to the same stack. Two
 * questions, each in its own pair of configurations, alternating within every run:
 * - On one machine: does a second worker process (and its own Chromium) add throughput on the
 *   same cores? It cannot add CPU, and the README says to run one worker per machine.
 * - Scale-out, issue #16 §4: with a machine's CPU each, do two workers crawl faster than one?
 *   This bench has one machine, so each worker and its Chromium are pinned to a CPU of their own
 *   (`taskset`), one worker on CPU 0 against two on CPUs 0 and 1. Temporal, Postgres, the API and
 *   the bench's site stay free to run on both, so the second worker also takes CPU from them:
 *   on machines of their own it would not.
 * The split of the pages between the workers is read from the crawl's Temporal history (which
 * worker started each page's activity).
 */
import { availableParallelism, loadavg } from 'node:os';
import { pinTree } from '../process-stats.js';
import type { BenchSettings, Scenario, ScenarioResult } from '../scenario.js';
import { startBenchSite } from '../site/server.js';
import { startBenchStack } from '../trawl/bench-stack.js';
import { timedCrawl } from '../trawl/timed-crawl.js';
import { historyStats } from '../trawl/workflow-history.js';

const DEFAULT_PAGES = 300;
/** Twice a worker's browser pages (BROWSER_PAGES_PER_WORKER, 4), so two workers can both be full. */
const CONCURRENCY = 8;

type Config = 'one' | 'two' | 'onePinned' | 'twoPinned';

/** An unpinned worker would measure the same-cores case under the pinned label. */
function pin(workerPid: number, cpu: number): void {
  if (!pinTree(workerPid, cpu)) throw new Error(`two-workers: cannot pin a worker to CPU ${cpu} (taskset, from util-linux, is needed)`);
}

export const twoWorkers: Scenario = {
  name: 'two-workers',
  description: `JavaScript crawl (the js variant) through the API with one worker, then with a second worker process added to the same stack (and stopped again before the next run); then the same with each worker and its Chromium pinned to a CPU of its own, as workers on machines of their own would be. maxConcurrency ${CONCURRENCY} (each worker renders up to 4 pages at once). The split of pages between the workers comes from the Temporal history.`,
  run,
};

async function run(settings: BenchSettings): Promise<ScenarioResult> {
  const { log } = settings;
  const pages = settings.pages ?? DEFAULT_PAGES;
  const site = await startBenchSite({ pages, prerender: ['js'] });
  const bench = await startBenchStack();
  const startUrl = site.url('js', 0);
  const rates: Record<Config, number[]> = { one: [], two: [], onePinned: [], twoPinned: [] };
  /** Per two-worker run, the share of the pages the worker that did fewer did. */
  const smallerShares: number[] = [];
  const label: Record<Config, string> = {
    one: 'one worker',
    two: 'two workers',
    onePinned: 'one worker on one CPU',
    twoPinned: 'two workers on a CPU each',
  };
  // Each worker's own CPU: the pinned pair needs two, and taskset.
  const pinning = availableParallelism() >= 2;
  const notes: string[] = [];
  const loads: number[] = [];
  const warmUp = () => timedCrawl(bench, { startUrl, limit: Math.min(20, pages), maxConcurrency: CONCURRENCY });
  const measure = async (config: Config, run: number) => {
    loads.push(loadavg()[0]!);
    const crawl = await timedCrawl(bench, { startUrl, limit: pages, maxConcurrency: CONCURRENCY });
    rates[config].push(crawl.pages / crawl.seconds);
    const history = await historyStats(bench.temporal, crawl.workflowId);
    const perWorker = [...history.pagesByWorker.values()];
    const split = perWorker.join(' + ');
    if (config === 'two' || config === 'twoPinned') smallerShares.push(perWorker.length < 2 ? 0 : Math.min(...perWorker) / perWorker.reduce((a, b) => a + b, 0));
    log(`  ${label[config]}, run ${run + 1}: ${crawl.pages} pages in ${crawl.seconds.toFixed(1)} s (pages per worker: ${split})`);
    if (run === settings.runs - 1) notes.push(`pages per worker, last run with ${label[config]}: ${split}`);
  };
  try {
    await warmUp();
    // The configurations alternate within each run, so a drift over the scenario (one worker's
    // rate fell from 6.6 to 6.0 pages/s over three consecutive runs) does not fall on one side.
    for (let i = 0; i < settings.runs; i++) {
      await measure('one', i);
      const second = await bench.stack.startWorker();
      // The new worker's JIT and browser, as the first warm-up did for the first.
      await warmUp();
      await measure('two', i);
      await second.kill('SIGTERM');
      if (!pinning) continue;
      // The first worker, already warm, on CPU 0 from now on; a second one on CPU 1.
      const [first] = bench.stack.workers;
      pin(first!.pid, 0);
      await measure('onePinned', i);
      const pinned = await bench.stack.startWorker();
      pin(pinned.pid, 1);
      await warmUp();
      await measure('twoPinned', i);
      // An unpinned first worker again for the next run.
      await Promise.all([pinned.kill('SIGTERM'), first!.kill('SIGTERM')]);
      await bench.stack.startWorker();
      await warmUp();
    }
  } catch (err) {
    log(bench.tail());
    throw err;
  } finally {
    await bench.stop();
    await site.close();
  }
  notes.push(
    `${pages} pages per crawl, maxConcurrency ${CONCURRENCY}; 1-min load average at run starts ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`,
  );
  if (!pinning) notes.push('the pinned configurations need two CPUs; this machine has one');
  const ratio = (two: number[], one: number[]) => two.map((r, i) => r / one[i]!);
  return {
    rows: [
      { metric: 'one worker', unit: 'pages/s', values: rates.one },
      { metric: 'two workers on the same cores', unit: 'pages/s', values: rates.two },
      { metric: 'two ÷ one, same cores', unit: '×', values: ratio(rates.two, rates.one) },
      { metric: 'one worker on one CPU', unit: 'pages/s', values: rates.onePinned },
      { metric: 'two workers on a CPU each', unit: 'pages/s', values: rates.twoPinned },
      // Issue #16 §4: throughput with two workers (on machines of their own) is not lower than with one.
      { metric: 'two ÷ one, a CPU each', unit: '×', values: ratio(rates.twoPinned, rates.onePinned), target: { text: '≥ 1.0', ok: (m) => m >= 1 } },
      // And no split worse than 35/65.
      { metric: "smaller worker's share of the pages", unit: '%', values: smallerShares.map((s) => 100 * s), target: { text: '≥ 35 %', ok: (m) => m >= 35 } },
    ],
    notes,
  };
}
