/**
 * What storing a crawled page costs, alone: `settlePage` with the page's Document, search entry
 * and page-cache copy, as a crawl's worker calls it, four at a time against the local Postgres.
 * The pages are the bench site's static articles, converted once before the clock starts. The
 * crawl scenarios swing by more between runs than a change to this path moves them; this one
 * counts the CPU of the storing process and of the Postgres server per page, so such a change
 * can be measured. The same pages stored with a cache copy that sends its own markdown, and
 * without their search entry, show what those cost.
 */
import { randomUUID } from 'node:crypto';
import { completedDocumentRow } from '../../activities/page/document-row.js';
import { createDb, type Db } from '../../db/connect.js';
import { migrateToLatest } from '../../db/migrator.js';
import { settlePage } from '../../db/repositories/crawl-pages.js';
import { newCacheCopy, type CacheCopy } from '../../db/repositories/page-cache.js';
import { findOrCreateTeam } from '../../db/repositories/teams.js';
import { searchEntry } from '../../lib/search/index-entry.js';
import { transformHtml } from '../../scraper/html/transform.js';
import type { Document } from '../../scraper/scrape.js';
import { createDatabase, dropDatabase, insertRunningJob, testDatabaseUrl } from '../../test/helpers/test-db.js';
import { postgresCpuSeconds } from '../process-stats.js';
import type { BenchSettings, Scenario, ScenarioResult } from '../scenario.js';
import { renderPage } from '../site/article.js';

const DEFAULT_PAGES = 1_000;
const DISTINCT_PAGES = 200;
const CONCURRENCY = 4;
const WARM_UP_PAGES = 1_000;

interface Page {
  url: string;
  document: Document;
  links: string[];
}

/** The bench site's static articles as the crawl's conversion leaves them. */
function sitePages(): Page[] {
  return Array.from({ length: DISTINCT_PAGES }, (_, i) => {
    const url = `http://127.0.0.1/static/articles/${i + 1}`;
    const page = transformHtml(renderPage({ seed: 42, pages: 2_000 }, 'static', i + 1), url, {
      onlyMainContent: true,
      removeBase64Images: true,
      want: { markdown: true, html: false, rawHtml: false, links: true, images: false },
    });
    return { url, links: page.links ?? [], document: { markdown: page.markdown, metadata: { ...page.metadata, url, sourceURL: url, statusCode: 200 } } };
  });
}

/**
 * What a stored page carries besides its Document. `copySendsMarkdown` is the path of a copy
 * whose Document does not keep the markdown (a json-only scrape), and was every crawl page's
 * path before the copy took the markdown from the Document.
 */
interface Variant {
  label: string;
  search: boolean;
  copySendsMarkdown: boolean;
}

const VARIANTS: readonly Variant[] = [
  { label: '', search: true, copySendsMarkdown: false },
  { label: ', the cache copy sending its own markdown', search: true, copySendsMarkdown: true },
  { label: ', without the search entry', search: false, copySendsMarkdown: false },
];

/** The page's copy for the cache, as activities/page/fetch.ts makes it for a crawl page. */
function cacheCopyOf(teamId: string, page: Page, key: string, variant: Variant): CacheCopy {
  const scraped = { document: page.document, statusCode: 200, engine: 'fetch', links: page.links };
  return { ...newCacheCopy({ teamId, key, url: page.url, cachedAt: new Date() }, scraped), markdownInDocument: !variant.copySendsMarkdown };
}

interface Cost {
  workerMs: number;
  postgresMs: number;
  wallMs: number;
}

/**
 * Stores `count` pages under fresh keys of `jobId`, CONCURRENCY at a time, each settling its
 * frontier row as a claimed crawl page does; the cost per page.
 */
async function storePages(db: Db, teamId: string, jobId: string, pages: readonly Page[], count: number, variant: Variant): Promise<Cost> {
  const keys = Array.from({ length: count }, () => randomUUID());
  for (let i = 0; i < count; i += 500) {
    const rows = keys.slice(i, i + 500).map((key, j) => ({ job_id: jobId, url_key: key, url: pages[(i + j) % pages.length]!.url, depth: 1, status: 'scraping' as const }));
    await db.insertInto('crawl_pages').values(rows).execute();
  }
  const cpu = process.cpuUsage();
  const postgres = postgresCpuSeconds();
  const started = performance.now();
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < count; i = next++) {
      const page = pages[i % pages.length]!;
      const key = keys[i]!;
      const row = completedDocumentRow({ id: randomUUID(), jobId, teamId, url: page.url, urlKey: key, document: page.document, creditsUsed: 1 });
      await settlePage(db, { jobId, urlKey: key, status: 'completed' }, row, {
        search: variant.search ? searchEntry(page.document, page.url) : undefined,
        cacheCopy: cacheCopyOf(teamId, page, key, variant),
      });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  const used = process.cpuUsage(cpu);
  return {
    workerMs: (used.user + used.system) / 1000 / count,
    postgresMs: ((postgresCpuSeconds() - postgres) * 1000) / count,
    wallMs: (performance.now() - started) / count,
  };
}

async function run(settings: BenchSettings): Promise<ScenarioResult> {
  const count = settings.pages ?? DEFAULT_PAGES;
  const pages = sitePages();
  const url = testDatabaseUrl('trawl_bench_store');
  await createDatabase(url);
  const db = createDb(url, { maxConnections: CONCURRENCY });
  try {
    const { error } = await migrateToLatest(db);
    if (error) throw error;
    const team = await findOrCreateTeam(db, 'bench');
    const jobId = await insertRunningJob(db, { teamId: team.id, kind: 'crawl', url: pages[0]!.url });
    await storePages(db, team.id, jobId, pages, WARM_UP_PAGES, VARIANTS[0]!);
    const costs = VARIANTS.map((): Cost[] => []);
    // The variants take turns within each run, each run starting with the next one: the machine's
    // speed drifts by a fifth from one minute to the next here, and the tables grow as they go.
    for (let r = 0; r < settings.runs; r++) {
      for (let k = 0; k < VARIANTS.length; k++) {
        const i = (r + k) % VARIANTS.length;
        costs[i]!.push(await storePages(db, team.id, jobId, pages, count, VARIANTS[i]!));
      }
      settings.log(`  run ${r + 1}: ${costs.map((c, i) => `${c.at(-1)!.workerMs.toFixed(2)} + ${c.at(-1)!.postgresMs.toFixed(2)} ms${VARIANTS[i]!.label}`).join('; ')}`);
    }
    const rows = VARIANTS.flatMap(({ label }, i) => [
      { metric: `storing process CPU per page${label}`, unit: 'ms', values: costs[i]!.map((c) => c.workerMs) },
      { metric: `Postgres CPU per page${label} (the whole local server)`, unit: 'ms', values: costs[i]!.map((c) => c.postgresMs) },
      ...(i === 0 ? [{ metric: `wall time per page, ${CONCURRENCY} at a time`, unit: 'ms', values: costs[i]!.map((c) => c.wallMs) }] : []),
    ]);
    const size = pages.reduce((sum, p) => sum + Buffer.byteLength(p.document.markdown as string), 0) / pages.length;
    return {
      rows,
      notes: [
        `${count} pages per figure and run, ${DISTINCT_PAGES} distinct bench-site articles (markdown ${(size / 1024).toFixed(1)} KB on average), after ${WARM_UP_PAGES} stored to warm up; the storing process converts nothing while it is timed`,
      ],
    };
  } finally {
    await db.destroy();
    await dropDatabase(url);
  }
}

export const pageStore: Scenario = {
  name: 'page-store',
  description:
    "Storing a crawled page alone: settlePage with its Document, search entry and page-cache copy, as a crawl's worker calls it, four at a time against the local Postgres, for the bench site's static articles converted beforehand; CPU per page of the storing process and of the Postgres server. Beside it, taking turns within each run: the cache copy sending its own markdown (the path before the copy took it from the Document), and no search entry. No peer: it measures a part of the static crawl that the crawl's run-to-run swing hides.",
  run,
};
