/** Every bench scenario, in the order `npm run bench` runs them (quick ones first, the long crawl last). */
import type { Scenario } from '../scenario.js';
import { blockDiffScenario } from './block-diff.js';
import { crawlComparison } from './crawl-comparison.js';
import { fidelityScenario } from './fidelity.js';
import { interactScenario } from './interact.js';
import { focusedCrawl } from './focused-crawl.js';
import { markdownThroughput } from './markdown-throughput.js';
import { memory } from './memory.js';
import { pageStore } from './page-store.js';
import { parseScenario } from './parse.js';
import { scrapeLatency } from './scrape-latency.js';
import { searchLatency } from './search-latency.js';
import { startup } from './startup.js';
import { twoWorkers } from './two-workers.js';

export const SCENARIOS: readonly Scenario[] = [
  startup,
  markdownThroughput,
  blockDiffScenario,
  fidelityScenario,
  parseScenario,
  scrapeLatency({ name: 'scrape-static', variant: 'static', defaultCalls: 200, overheadTargetMs: 15 }),
  // A rendered page costs about a second here: 200 calls × 2 sides × 3 runs would take 20 minutes.
  searchLatency,
  interactScenario,
  scrapeLatency({ name: 'scrape-js', variant: 'js', defaultCalls: 50, apiP50TargetMs: 250 }),
  pageStore,
  focusedCrawl,
  crawlComparison({
    name: 'static-crawl',
    description:
      'Static crawl through the public API (POST /v2/crawl, GET /v2/crawl/{id} polled every 200 ms until completed) against Crawlee CheerioCrawler in its own process doing fetch, turndown and enqueueLinks (tuned for throughput), and against the bare ceiling: our own fetch, conversion and link extraction in one process, without API, Temporal or Postgres.',
    variant: 'static',
    peer: 'cheerio',
    defaultPages: 2_000,
    concurrency: 10,
    peerTarget: 1.5,
    ceilingTarget: 0.5,
  }),
  crawlComparison({
    name: 'js-crawl',
    description:
      'JavaScript crawl (the js variant: content rendered by a script) through the public API against Crawlee PlaywrightCrawler with the same Chromium and flags, rendering, page.content(), turndown and enqueueLinks (tuned for throughput), and against the bare ceiling with our browser pool. Concurrency 4: a worker renders 4 pages at once (BROWSER_PAGES_PER_WORKER).',
    variant: 'js',
    peer: 'playwright',
    defaultPages: 300,
    concurrency: 4,
    peerTarget: 1.0,
    ceilingTarget: 0.8,
  }),
  twoWorkers,
  memory,
];
