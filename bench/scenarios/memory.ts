/**
 * A long static crawl, watching the resident memory of the worker and the API: a leak shows as
 * growth between the first tenth of the crawl and its end. Memory is read from /proc each second
 * and at the checkpoints; afterwards no Chromium may be left in the worker's process tree.
 */
import { loadavg } from 'node:os';
import type { ProcessEntry } from '../../scripts/process-tree.js';
import { chromiumBelow, rssBytes, stillRunning } from '../process-stats.js';
import type { BenchSettings, Scenario, ScenarioResult } from '../scenario.js';
import { startBenchSite } from '../site/server.js';
import { startBenchStack } from '../trawl/bench-stack.js';
import { timedCrawl } from '../trawl/timed-crawl.js';
import { describeHistory, historyStats } from '../trawl/workflow-history.js';

const DEFAULT_PAGES = 10_000;
const CONCURRENCY = 10;
const MB = 2 ** 20;

export const memory: Scenario = {
  name: 'memory',
  description: `One static crawl of 10,000 pages through the API (concurrency ${CONCURRENCY}, links only); VmRSS of the worker and the API after the first tenth of the pages and at the end, and Chromium processes left in the worker's tree after the crawl and after the stack stopped. One crawl, so min = max = median.`,
  run,
};

async function run(settings: BenchSettings): Promise<ScenarioResult> {
  const pages = settings.pages ?? DEFAULT_PAGES;
  const checkpoint = Math.ceil(pages / 10);
  // Pages are generated on request: holding 10,000 rendered pages would cost this process 400 MB.
  const site = await startBenchSite({ pages });
  const bench = await startBenchStack();
  const worker = bench.stack.workers[0]!;
  const apiPid = bench.apiPid();
  const rss = () => ({ worker: rssBytes(worker.pid) ?? NaN, api: rssBytes(apiPid) ?? NaN });
  const peak = { worker: 0, api: 0 };
  let atCheckpoint: { worker: number; api: number } | undefined;
  const chromiumSeen: ProcessEntry[] = [];
  const sampler = setInterval(() => {
    const now = rss();
    peak.worker = Math.max(peak.worker, now.worker);
    peak.api = Math.max(peak.api, now.api);
    chromiumSeen.push(...chromiumBelow(worker.pid));
  }, 1_000);
  const notes: string[] = [];
  let atEnd: { worker: number; api: number };
  let seconds: number;
  const load = loadavg()[0]!;
  try {
    const crawl = await timedCrawl(bench, { startUrl: site.url('static', 0), limit: pages, maxConcurrency: CONCURRENCY }, (status) => {
      if (!atCheckpoint && status.completed >= checkpoint) {
        atCheckpoint = rss();
        settings.log(`  after ${status.completed} pages: worker ${(atCheckpoint.worker / MB).toFixed(0)} MB, API ${(atCheckpoint.api / MB).toFixed(0)} MB`);
      }
    });
    atEnd = rss();
    seconds = crawl.seconds;
    settings.log(`  after ${crawl.pages} pages (${crawl.seconds.toFixed(0)} s): worker ${(atEnd.worker / MB).toFixed(0)} MB, API ${(atEnd.api / MB).toFixed(0)} MB`);
    chromiumSeen.push(...chromiumBelow(worker.pid));
    notes.push(`Chromium processes in the worker's tree after the crawl: ${chromiumBelow(worker.pid).length}`);
    notes.push(`Temporal: ${describeHistory(await historyStats(bench.temporal, crawl.workflowId), crawl.pages)}`);
    notes.push(`${crawl.pages} pages in ${crawl.seconds.toFixed(0)} s = ${(crawl.pages / crawl.seconds).toFixed(1)} pages/s; 1-min load average at start ${load.toFixed(1)}`);
  } catch (err) {
    settings.log(bench.tail());
    throw err;
  } finally {
    clearInterval(sampler);
    await bench.stop();
    await site.close();
  }
  const left = new Set(stillRunning(chromiumSeen).map((p) => p.pid));
  notes.push(`Chromium processes of the worker still running after the stack stopped: ${left.size}`);
  notes.push(`peak RSS: worker ${(peak.worker / MB).toFixed(0)} MB, API ${(peak.api / MB).toFixed(0)} MB`);
  if (!atCheckpoint) throw new Error('the crawl finished before the first checkpoint was polled');
  const growth = (key: 'worker' | 'api') => (100 * (atEnd[key] - atCheckpoint![key])) / atCheckpoint![key];
  const within20 = { text: '≤ 20 %', ok: (m: number) => m <= 20 };
  return {
    rows: [
      { metric: `worker RSS after ${checkpoint} pages`, unit: 'MB', values: [atCheckpoint.worker / MB] },
      { metric: `worker RSS after ${pages} pages`, unit: 'MB', values: [atEnd.worker / MB] },
      { metric: 'worker RSS growth', unit: '%', values: [growth('worker')], target: within20 },
      { metric: `API RSS after ${checkpoint} pages`, unit: 'MB', values: [atCheckpoint.api / MB] },
      { metric: `API RSS after ${pages} pages`, unit: 'MB', values: [atEnd.api / MB] },
      { metric: 'API RSS growth', unit: '%', values: [growth('api')], target: within20 },
      { metric: 'leftover Chromium after stop', unit: 'processes', values: [left.size], target: { text: '0', ok: (m) => m === 0 } },
      { metric: 'crawl rate', unit: 'pages/s', values: [pages / seconds] },
    ],
    notes,
  };
}
