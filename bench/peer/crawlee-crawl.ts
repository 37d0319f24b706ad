/**
 * The peer: one Crawlee crawl of the bench site, run as its own process so it gets the same
 * footing as a Trawl worker (its own event loop, not the bench's, which serves the site).
 *
 *   node --import tsx bench/peer/crawlee-crawl.ts <cheerio|playwright> <startUrl> <maxPages> <concurrency> [tuned|defaults]
 *
 * Each page is fetched (CheerioCrawler) or rendered in Chromium (PlaywrightCrawler), converted to
 * markdown with plain turndown, kept in memory, and its links enqueued, as Trawl's crawl does.
 *
 * `tuned` (the default) is the peer at its own best speed; `defaults` is the set-up the bench used
 * before, kept to show what each setting is worth. What `tuned` changes, and why:
 *
 * - Links are de-duplicated before `enqueueLinks` (a `transformRequestFunction` over a Set). With
 *   `maxRequestsPerCrawl`, Crawlee caps each `enqueueLinks` call at the crawl's remaining budget and
 *   adds the links in chunks of that size, sleeping `waitBetweenBatchesMillis` (1 s) between
 *   chunks; links already in the queue do not use up the budget, so once the frontier is nearly
 *   full a page of 22 known links held its handler for 1–3 s (87 of 500 handlers in one run).
 *   Offering only new links makes every call one chunk, with no sleep.
 * - No session pool (`useSessionPool: false`): the bench site never blocks, and the pool created a
 *   new session, with its own cookie jar and header fingerprint, for each of the first 1,000 requests.
 * - Fixed concurrency (`minConcurrency = maxConcurrency`, and `desiredConcurrency` the same), as
 *   Crawlee's scaling guide describes: the autoscaled pool only holds tasks back for system load
 *   while it runs at or above `minConcurrency`, so the snapshots of a shared, loaded machine cannot
 *   throttle it. Both set-ups keep this.
 * - Storage in memory only (`persistStorage: false`): Crawlee would otherwise write every request
 *   to ./storage, which is not the work being compared. Both set-ups keep this.
 * - PlaywrightCrawler: no browser fingerprints (`useFingerprints: false`), which inject a script
 *   into every page; Trawl does not disguise its browser either.
 *
 * Prints one line `BENCH_RESULT {"pages":…,"seconds":…,"markdownBytes":…,"cpuSeconds":…}`.
 * CRAWLEE_LOG=1 turns on Crawlee's debug log (its autoscaling and request statistics).
 */
import { CheerioCrawler, Configuration, log, PlaywrightCrawler, type RequestOptions } from 'crawlee';
import { chromium } from 'playwright-core';
import { selfCpu } from '../process-stats.js';
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from './chromium-flags.js';
import { PEER_RESULT_PREFIX, type PeerResult } from './peer-result.js';
import { createPlainTurndown } from './turndown.js';

export type PeerSetup = 'tuned' | 'defaults';

async function main(): Promise<void> {
  const [kind, startUrl, maxPagesArg, concurrencyArg, setupArg = 'tuned'] = process.argv.slice(2);
  const maxPages = Number(maxPagesArg);
  const concurrency = Number(concurrencyArg);
  const setup = setupArg as PeerSetup;
  if ((kind !== 'cheerio' && kind !== 'playwright') || !startUrl || !(maxPages > 0) || !(concurrency > 0) || (setup !== 'tuned' && setup !== 'defaults')) {
    throw new Error('usage: crawlee-crawl.ts <cheerio|playwright> <startUrl> <maxPages> <concurrency> [tuned|defaults]');
  }
  const tuned = setup === 'tuned';
  // Before the crawler launches its browser, so every Chromium process is counted.
  const cpu = selfCpu('crawlee');
  log.setLevel(process.env.CRAWLEE_LOG ? log.LEVELS.DEBUG : log.LEVELS.WARNING);
  const config = new Configuration({ persistStorage: false, purgeOnStart: true });
  const turndown = createPlainTurndown();
  const markdown: string[] = [];
  const seen = new Set<string>([startUrl]);
  const onlyNew = (request: RequestOptions) => {
    if (seen.has(request.url)) return false;
    seen.add(request.url);
    return request;
  };
  const enqueueOptions = { strategy: 'same-hostname' as const, ...(tuned ? { transformRequestFunction: onlyNew } : {}) };
  const common = {
    maxRequestsPerCrawl: maxPages,
    minConcurrency: concurrency,
    maxConcurrency: concurrency,
    ...(tuned ? { autoscaledPoolOptions: { desiredConcurrency: concurrency }, useSessionPool: false } : {}),
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
              await enqueueLinks(enqueueOptions);
            },
          },
          config,
        )
      : new PlaywrightCrawler(
          {
            ...common,
            ...(tuned ? { persistCookiesPerSession: false, browserPoolOptions: { useFingerprints: false } } : {}),
            launchContext: {
              // playwright-core's launcher: the `playwright` package would download its own browsers.
              launcher: chromium,
              launchOptions: { executablePath: CHROMIUM_PATH, args: [...CHROMIUM_FLAGS], headless: true },
            },
            async requestHandler({ page, enqueueLinks }) {
              markdown.push(turndown.turndown(await page.content()));
              await enqueueLinks(enqueueOptions);
            },
          },
          config,
        );

  const cpuBefore = cpu.seconds();
  const startedAt = performance.now();
  const stats = await crawler.run([startUrl]);
  const seconds = (performance.now() - startedAt) / 1000;
  const result: PeerResult = {
    pages: stats.requestsFinished,
    seconds,
    markdownBytes: markdown.reduce((sum, md) => sum + Buffer.byteLength(md), 0),
    cpuSeconds: cpu.seconds() - cpuBefore,
    cpuCountedBy: cpu.countedBy,
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
