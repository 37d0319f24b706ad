/**
 * JavaScript crawl with one worker, then with a second worker added to the same stack: does a
 * second worker process (and its own Chromium) add throughput on this machine? Each run crawls
 * with one, then starts the second, crawls with both and stops it again; then crawls with two
 * workers of half the browser pages each, as many pages at once as one worker renders. The split
 * of the pages between the workers is read from the crawl's Temporal history (which worker
 * started each crawlPage activity).
 */
import { loadavg } from 'node:os';
import type { BenchSettings, Scenario, ScenarioResult } from '../scenario.js';
import { startBenchSite } from '../site/server.js';
import { startBenchStack } from '../trawl/bench-stack.js';
import { timedCrawl } from '../trawl/timed-crawl.js';
import { historyStats } from '../trawl/workflow-history.js';

const DEFAULT_PAGES = 300;
/** Twice a worker's browser pages (BROWSER_PAGES_PER_WORKER, 4), so two workers can both be full. */
const CONCURRENCY = 8;
/** Half the default, so two workers render as many pages at once as one does. */
const PAGES_PER_HALF = 2;
const HALF = { BROWSER_PAGES_PER_WORKER: String(PAGES_PER_HALF) };

type Config = 'one' | 'two' | 'split';

export const twoWorkers: Scenario = {
  name: 'two-workers',
  description: `JavaScript crawl (the js variant) through the API with one worker, then with a second worker process added to the same stack (and stopped again before the next run), and with two workers of ${PAGES_PER_HALF} browser pages each; maxConcurrency ${CONCURRENCY} (each worker renders up to 4 pages at once). The split of pages between the workers comes from the Temporal history.`,
  run,
};

async function run(settings: BenchSettings): Promise<ScenarioResult> {
  const { log } = settings;
  const pages = settings.pages ?? DEFAULT_PAGES;
  const site = await startBenchSite({ pages, prerender: ['js'] });
  const bench = await startBenchStack();
  const startUrl = site.url('js', 0);
  const rates: Record<Config, number[]> = { one: [], two: [], split: [] };
  /** Per two-worker run, the share of the pages the worker that did fewer did. */
  const smallerShares: number[] = [];
  const label: Record<Config, string> = { one: 'one worker', two: 'two workers', split: `two workers with ${PAGES_PER_HALF} browser pages each` };
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
    if (config !== 'one') smallerShares.push(perWorker.length < 2 ? 0 : Math.min(...perWorker) / perWorker.reduce((a, b) => a + b, 0));
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
      // Two workers rendering as many pages at once as the one did: what the second process costs
      // apart from the page count. Then the one default worker back for the next run.
      const [first] = bench.stack.workers;
      await first!.kill('SIGTERM');
      const halves = [await bench.stack.startWorker(HALF), await bench.stack.startWorker(HALF)];
      await warmUp();
      await measure('split', i);
      await Promise.all(halves.map((worker) => worker.kill('SIGTERM')));
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
  return {
    rows: [
      { metric: 'one worker', unit: 'pages/s', values: rates.one },
      { metric: 'two workers', unit: 'pages/s', values: rates.two },
      // Issue #16 §4: throughput with two workers is not lower than with one, and no split worse than 35/65.
      { metric: 'two ÷ one', unit: '×', values: rates.two.map((r, i) => r / rates.one[i]!), target: { text: '≥ 1.0', ok: (m) => m >= 1 } },
      { metric: "smaller worker's share of the pages", unit: '%', values: smallerShares.map((s) => 100 * s), target: { text: '≥ 35 %', ok: (m) => m >= 35 } },
      { metric: `two workers with ${PAGES_PER_HALF} pages each`, unit: 'pages/s', values: rates.split },
      { metric: `two with ${PAGES_PER_HALF} pages each ÷ one with 4`, unit: '×', values: rates.split.map((r, i) => r / rates.one[i]!) },
    ],
    notes,
  };
}
