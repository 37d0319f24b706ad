/**
 * The query-directed crawl (issue #38 §3) on a generated site with one relevant section in ten
 * (test/helpers/topic-site.ts), through the public API: with `query` and a limit of 30 % of the
 * site, the share of the relevant pages it reaches and the share of the site it fetches; breadth
 * first with the same limit is the baseline. Every page fetched is counted by the site itself.
 * Twice: with links that name their pages, and with vague links (opaque URLs, "read more"),
 * where only the text beside a link says what it leads to.
 */
import { loadavg } from 'node:os';
import { startTopicSite } from '../../test/helpers/topic-site.js';
import type { BenchSettings, Scenario, ScenarioResult } from '../scenario.js';
import { crawlDocuments, startCrawl, waitForCrawl, type ApiTarget } from '../trawl/api-client.js';
import { startBenchStack } from '../trawl/bench-stack.js';

const DEFAULT_PAGES = 1_001;
const SHARE_FETCHED = 0.3;

export const focusedCrawl: Scenario = {
  name: 'focused-crawl',
  description:
    'Query-directed crawl (POST /v2/crawl with `query`, best first by link score, its own stop rules) on a generated site of ten sections, one of them relevant, linked by menus and cross-links; limit 30 % of the site, concurrency 10, sitemap skipped. Relevant pages reached and the share of the site fetched (counted by the site), against breadth first with the same limit. Twice: links that name their pages, and vague links (opaque URLs, "read more" anchors, menus "section n") whose only clue is the text beside them.',
  run,
};

async function run(settings: BenchSettings): Promise<ScenarioResult> {
  const sites = { named: await startTopicSite(settings.pages ?? DEFAULT_PAGES), vague: await startTopicSite(settings.pages ?? DEFAULT_PAGES, { vague: true }) };
  const bench = await startBenchStack();
  const rows = new Map<string, { unit: string; values: number[] }>();
  const push = (metric: string, unit: string, value: number) => rows.set(metric, { unit, values: [...(rows.get(metric)?.values ?? []), value] });
  const loads: number[] = [];
  const stops = new Set<string>();
  try {
    for (let r = 0; r < settings.runs; r++) {
      loads.push(loadavg()[0]!);
      for (const [links, site] of Object.entries(sites)) {
        const limit = Math.floor(site.pages * SHARE_FETCHED);
        site.hits.clear();
        const focused = await crawlOnce(bench, site.url, limit, { query: { query: site.query } });
        const focusedFetched = [...site.hits.values()].reduce((a, b) => a + b, 0);
        stops.add(`${links} ${focused.stopReason}`);
        const breadthFirst = await crawlOnce(bench, site.url, limit, {});
        const reached = (paths: string[]) => (100 * paths.filter((p) => site.relevant.has(p)).length) / site.relevant.size;
        push(`${links} links, focused: relevant pages reached`, '%', reached(focused.paths));
        push(`${links} links, focused: site fetched`, '%', (100 * focusedFetched) / site.pages);
        push(`${links} links, focused: crawl time`, 's', focused.seconds);
        push(`${links} links, breadth first: relevant pages reached`, '%', reached(breadthFirst.paths));
        push(`${links} links, breadth first: crawl time`, 's', breadthFirst.seconds);
        settings.log(
          `  run ${r + 1}, ${links} links: focused ${reached(focused.paths).toFixed(0)} % relevant with ${focusedFetched} pages fetched (${focused.stopReason}), breadth first ${reached(breadthFirst.paths).toFixed(0)} % with ${limit}`,
        );
      }
    }
  } finally {
    await bench.stop();
    await Promise.all(Object.values(sites).map((s) => s.close()));
  }
  const target = (metric: string): { text: string; ok: (median: number) => boolean } | undefined =>
    metric.endsWith('focused: relevant pages reached') ? { text: '≥ 90', ok: (m) => m >= 90 } : metric.endsWith('focused: site fetched') ? { text: '≤ 30', ok: (m) => m <= 30 } : undefined;
  const { named } = sites;
  return {
    rows: [...rows].map(([metric, { unit, values }]) => ({ metric, unit, values, ...(target(metric) && { target: target(metric) }) })),
    notes: [
      `${named.pages} pages, ${named.relevant.size} relevant (query "${named.query}"), limit ${Math.floor(named.pages * SHARE_FETCHED)}; stop reasons ${[...stops].join(', ')}; 1-min load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`,
    ],
  };
}

async function crawlOnce(target: ApiTarget, url: string, limit: number, extra: Record<string, unknown>) {
  const startedAt = performance.now();
  const id = await startCrawl(target, { url, limit, maxConcurrency: 10, sitemap: 'skip', crawlEntireDomain: true, scrapeOptions: { formats: ['markdown'], maxAge: 0 }, ...extra });
  const status = await waitForCrawl(target, id, { pollMs: 200, timeoutMs: 120_000 + limit * 2_000 });
  const seconds = (performance.now() - startedAt) / 1000;
  if (status.status !== 'completed') throw new Error(`crawl ${id} ended ${status.status}`);
  const documents = await crawlDocuments(target, id);
  return { paths: documents.map((d) => new URL(d.metadata.sourceURL).pathname), seconds, stopReason: (status as { stopReason?: string }).stopReason };
}
