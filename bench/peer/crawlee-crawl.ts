/**
 * The peer: one Crawlee crawl of the bench site, run as its own process so it gets the same
 * footing as a Trawl worker (its own event loop, not the bench's, which serves the site).
 *
 *   node --import tsx bench/peer/crawlee-crawl.ts <cheerio|playwright> <startUrl> <maxPages> <concurrency>
 *
 * Each page is fetched (CheerioCrawler) or rendered in Chromium (PlaywrightCrawler), converted to
 * markdown with plain turndown, kept in memory, and its links enqueued, as Trawl's crawl does.
 * Storage is in memory only (persistStorage: false): Crawlee would otherwise write every request
 * to ./storage, which is not the work being compared. Concurrency is fixed (min = max) so
 * Crawlee's autoscaling ramp does not hold it below the cap Trawl gets.
 *
 * Prints one line `BENCH_RESULT {"pages":…,"seconds":…,"markdownBytes":…}`. CRAWLEE_LOG=1 turns
 * on Crawlee's debug log (its autoscaling and request statistics).
 */
import { CheerioCrawler, Configuration, log, PlaywrightCrawler } from 'crawlee';
import { chromium } from 'playwright-core';
import { treeCpuSeconds } from '../process-stats.js';
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from './chromium-flags.js';
import { PEER_RESULT_PREFIX, type PeerResult } from './peer-result.js';
import { createPlainTurndown } from './turndown.js';

async function main(): Promise<void> {
  const [kind, startUrl, maxPagesArg, concurrencyArg] = process.argv.slice(2);
  const maxPages = Number(maxPagesArg);
  const concurrency = Number(concurrencyArg);
  if ((kind !== 'cheerio' && kind !== 'playwright') || !startUrl || !(maxPages > 0) || !(concurrency > 0)) {
    throw new Error('usage: crawlee-crawl.ts <cheerio|playwright> <startUrl> <maxPages> <concurrency>');
  }
  log.setLevel(process.env.CRAWLEE_LOG ? log.LEVELS.DEBUG : log.LEVELS.WARNING);
  const config = new Configuration({ persistStorage: false, purgeOnStart: true });
  const turndown = createPlainTurndown();
  const markdown: string[] = [];
  const common = {
    maxRequestsPerCrawl: maxPages,
    minConcurrency: concurrency,
    maxConcurrency: concurrency,
    // Same per-page deadline as Trawl's default scrape timeout.
    requestHandlerTimeoutSecs: 30,
  };

  const crawler =
    kind === 'cheerio'
      ? new CheerioCrawler(
          {
            ...common,
            async requestHandler({ body, enqueueLinks }) {
              markdown.push(turndown.turndown(body.toString()));
              await enqueueLinks({ strategy: 'same-hostname' });
            },
          },
          config,
        )
      : new PlaywrightCrawler(
          {
            ...common,
            launchContext: {
              // playwright-core's launcher: the `playwright` package would download its own browsers.
              launcher: chromium,
              launchOptions: { executablePath: CHROMIUM_PATH, args: [...CHROMIUM_FLAGS], headless: true },
            },
            async requestHandler({ page, enqueueLinks }) {
              markdown.push(turndown.turndown(await page.content()));
              await enqueueLinks({ strategy: 'same-hostname' });
            },
          },
          config,
        );

  const cpuBefore = treeCpuSeconds(process.pid);
  const startedAt = performance.now();
  const stats = await crawler.run([startUrl]);
  const seconds = (performance.now() - startedAt) / 1000;
  const result: PeerResult = {
    pages: stats.requestsFinished,
    seconds,
    markdownBytes: markdown.reduce((sum, md) => sum + Buffer.byteLength(md), 0),
    cpuSeconds: treeCpuSeconds(process.pid) - cpuBefore,
  };
  console.log(`${PEER_RESULT_PREFIX}${JSON.stringify(result)}`);
  if (stats.requestsFailed > 0) console.error(`crawlee: ${stats.requestsFailed} requests failed`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
