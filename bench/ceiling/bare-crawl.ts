/**
 * The bare ceiling of a crawl: Trawl's own page work with nothing of the service around it. One
 * process, no API, no Temporal, no Postgres: a frontier in memory, `concurrency` pages at once,
 * each fetched and converted by the worker's own `scrapeUrl()` (same engine choice, same pipeline,
 * same markdown as a crawl page), its links filtered by the crawl's own scope rules and frontier
 * key, as `discover()` does. What the service adds on top of this is the price of durability.
 *
 *   node --import tsx bench/ceiling/bare-crawl.ts <static|js> <startUrl> <maxPages> <concurrency>
 *
 * For the js variant the browser is the worker's (bench/trawl/worker-browser.ts: the guard proxy
 * and the content blocker, as the worker runs them) with `concurrency` page slots. HTML is
 * converted on the worker's thread pool, as many threads as a worker starts
 * (WORKER_HTML_THREADS, else scraper/html/transform-pool.ts's default). Prints the same
 * BENCH_RESULT line as the peers.
 */
import { resolveOutputs } from '../../contracts/page-outputs.js';
import { scrapeOptionsSchema } from '../../contracts/scrape-options.js';
import { frontierKey } from '../../activities/site/discover.js';
import { createScope } from '../../lib/crawl/scope.js';
import type { CrawlerSettings } from '../../lib/crawl/settings.js';
import { createTransformPool, defaultTransformThreads } from '../../scraper/html/transform-pool.js';
import { scrapeUrl } from '../../scraper/scrape.js';
import { PEER_RESULT_PREFIX, type PeerResult } from '../peer/peer-result.js';
import { selfCpu } from '../process-stats.js';
import { startWorkerBrowser } from '../trawl/worker-browser.js';

async function main(): Promise<void> {
  const [variant, startUrl, maxPagesArg, concurrencyArg] = process.argv.slice(2);
  const maxPages = Number(maxPagesArg);
  const concurrency = Number(concurrencyArg);
  if ((variant !== 'static' && variant !== 'js') || !startUrl || !(maxPages > 0) || !(concurrency > 0)) {
    throw new Error('usage: bare-crawl.ts <static|js> <startUrl> <maxPages> <concurrency>');
  }
  // What POST /v2/crawl with the bench's body resolves to (api/routes/crawl.ts).
  const crawler: CrawlerSettings = {
    startUrl,
    includePaths: [],
    excludePaths: [],
    regexOnFullURL: false,
    limit: maxPages,
    sitemap: 'skip',
    crawlEntireDomain: false,
    allowSubdomains: false,
    allowExternalLinks: false,
    ignoreRobotsTxt: true,
    ignoreQueryParameters: false,
    deduplicateSimilarURLs: false,
  };
  const options = scrapeOptionsSchema.parse({ formats: ['markdown'], maxAge: 0 });
  const outputs = resolveOutputs(options.formats);
  // Before the browser starts, so every Chromium process is counted, a retired browser's too.
  const cpu = selfCpu('ceiling');
  const worker = await startWorkerBrowser({ maxConcurrentPages: concurrency });
  const { browser } = worker;
  const threads = process.env.WORKER_HTML_THREADS ? Number(process.env.WORKER_HTML_THREADS) : defaultTransformThreads();
  const htmlThreads = threads > 0 ? createTransformPool(threads) : undefined;
  // Each thread's start (tsx and the conversion modules) before the clock starts, as the Trawl
  // side's warm-up crawl does for the worker's threads.
  const warmUp = { onlyMainContent: true, removeBase64Images: false, want: { markdown: true, html: false, rawHtml: false, links: true, images: false } };
  await Promise.all(Array.from({ length: threads }, () => htmlThreads?.transform('<p>warm</p>', startUrl, warmUp)));
  const scope = createScope(crawler);

  const seen = new Set<string>([frontierKey(startUrl, crawler)]);
  const queue: { url: string; depth: number }[] = [{ url: startUrl, depth: 0 }];
  let pages = 0;
  let markdownBytes = 0;
  let running = 0;
  let wake: (() => void) | undefined;

  const crawlOne = async (url: string, depth: number) => {
    const outcome = await scrapeUrl(
      { url, sourceUrl: url, options, outputs, scrapeId: `ceiling-${pages}`, deadline: Date.now() + options.timeout, signal: AbortSignal.timeout(options.timeout) },
      { browser, allowPrivateNetwork: true, transformHtml: htmlThreads?.transform },
    );
    pages++;
    markdownBytes += Buffer.byteLength(String(outcome.document.markdown ?? ''));
    for (const raw of outcome.links) {
      if (seen.size >= maxPages) break;
      let link: URL;
      try {
        link = new URL(raw);
      } catch {
        continue;
      }
      link.hash = '';
      if (!scope.check(link.href, depth + 1).ok) continue;
      const key = frontierKey(link.href, crawler);
      if (seen.has(key)) continue;
      seen.add(key);
      queue.push({ url: link.href, depth: depth + 1 });
    }
  };

  const cpuBefore = cpu.seconds();
  const startedAt = performance.now();
  // A pool of `concurrency` pages in flight, fed from the queue, until it is empty and idle.
  while (queue.length > 0 || running > 0) {
    while (running < concurrency && queue.length > 0) {
      const next = queue.shift()!;
      running++;
      void crawlOne(next.url, next.depth)
        .catch((err: unknown) => console.error(`ceiling: ${next.url}: ${String(err)}`))
        .finally(() => {
          running--;
          wake?.();
        });
    }
    await new Promise<void>((resolve) => (wake = resolve));
  }
  const seconds = (performance.now() - startedAt) / 1000;
  const result: PeerResult = { pages, seconds, markdownBytes, cpuSeconds: cpu.seconds() - cpuBefore, cpuCountedBy: cpu.countedBy };
  await worker.close();
  await htmlThreads?.close();
  console.log(`${PEER_RESULT_PREFIX}${JSON.stringify(result)}`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
