/**
 * Latency of POST /v2/search on the built-in index: 10,000 stored pages of synthetic text (a
 * Zipf-distributed vocabulary, so some words are in most pages and most are in few), then
 * sequential searches of one to three words, timed at the client. The bare ceiling beside it is
 * the same index query run in-process against the same database: the difference is the API,
 * the search workflow and its activity.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { completedDocumentRow } from '../../activities/page/document-row.js';
import { createDb, type Db } from '../../db/connect.js';
import { settlePage } from '../../db/repositories/crawl-pages.js';
import { searchIndex } from '../../db/repositories/search-index.js';
import { searchEntry } from '../../lib/search/index-entry.js';
import type { BenchSettings, Scenario, ScenarioResult } from '../scenario.js';
import { percentile } from '../stats.js';
import { startBenchStack } from '../trawl/bench-stack.js';

const DOCUMENTS = 10_000;
const WORDS_PER_PAGE = 400;
const VOCABULARY = 5_000;
const WARM_UP_CALLS = 20;
const DEFAULT_CALLS = 200;

/** A deterministic generator, so every run searches the same corpus. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const SYLLABLES = ['ka', 'lo', 'mi', 'ner', 'tu', 'vas', 'ri', 'do', 'shen', 'pa', 'gor', 'el', 'qui', 'zan', 'bo', 'ty'];

function vocabulary(rand: () => number): string[] {
  const words = new Set<string>();
  while (words.size < VOCABULARY) {
    const length = 2 + Math.floor(rand() * 3);
    words.add(Array.from({ length }, () => SYLLABLES[Math.floor(rand() * SYLLABLES.length)]).join(''));
  }
  return [...words];
}

/** Zipf: word i has weight 1/(i+1). */
function zipfPicker(words: string[], rand: () => number): () => string {
  const cumulative: number[] = [];
  let total = 0;
  for (let i = 0; i < words.length; i++) cumulative.push((total += 1 / (i + 1)));
  return () => {
    const x = rand() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return words[lo]!;
  };
}

/** Stores the pages as a crawl does (settlePage, with their index entries), four at a time. */
async function seed(db: Db, teamId: string, pick: () => string): Promise<void> {
  const jobId = randomUUID();
  await db
    .insertInto('jobs')
    .values({ id: jobId, team_id: teamId, kind: 'batch_scrape', status: 'completed', url: null, options: JSON.stringify({}), workflow_id: `bench-${jobId}`, updated_at: new Date(), expires_at: new Date(Date.now() + 86_400_000) })
    .execute();
  const words = (n: number) => Array.from({ length: n }, pick).join(' ');
  const pages = Array.from({ length: DOCUMENTS }, (_, i) => {
    const url = `https://corpus.example/page/${i}`;
    const document = { markdown: `# ${words(5)}\n\n${words(WORDS_PER_PAGE)}`, metadata: { url, sourceURL: url, title: words(5), description: words(12), language: 'en' } };
    return { url, urlKey: `k${i}`, document };
  });
  let next = 0;
  const store = async () => {
    for (let page = pages[next++]; page; page = pages[next++]) {
      const row = completedDocumentRow({ id: randomUUID(), jobId, teamId, url: page.url, urlKey: page.urlKey, document: page.document, creditsUsed: 1 });
      await settlePage(db, { jobId, urlKey: page.urlKey, status: 'completed' }, row, { search: searchEntry(page.document, page.url) });
    }
  };
  await Promise.all(Array.from({ length: 4 }, store));
  await sql`analyze search_documents`.execute(db);
}

async function run(settings: BenchSettings): Promise<ScenarioResult> {
  const calls = settings.calls ?? DEFAULT_CALLS;
  const rand = random(42);
  const words = vocabulary(rand);
  const pick = zipfPicker(words, rand);
  const bench = await startBenchStack();
  const db = createDb(bench.databaseUrl, { maxConnections: 4 });
  try {
    const t0 = performance.now();
    await seed(db, bench.teamId, pick);
    settings.log(`   seeded ${DOCUMENTS} pages in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    // Queries drawn from the same distribution: common words match thousands of pages, rare ones few.
    const queries = Array.from({ length: calls + WARM_UP_CALLS }, () => Array.from({ length: 1 + Math.floor(rand() * 3) }, pick).join(' '));
    const viaApi = async (query: string) => {
      const started = performance.now();
      const response = await fetch(`${bench.apiUrl}/v2/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bench.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query, limit: 10 }),
      });
      const body = (await response.json()) as { success: boolean; data?: { web?: unknown[] } };
      if (!response.ok || !body.success) throw new Error(`search "${query}": HTTP ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
      return { ms: performance.now() - started, hits: body.data?.web?.length ?? 0 };
    };
    const inProcess = async (query: string) => {
      const started = performance.now();
      const hits = await searchIndex(db, { teamId: bench.teamId, query, limit: 10 });
      return { ms: performance.now() - started, hits: hits.length };
    };
    for (const q of queries.slice(0, WARM_UP_CALLS)) await viaApi(q);
    const api: { p50: number[]; p95: number[] } = { p50: [], p95: [] };
    const bare: { p50: number[]; p95: number[] } = { p50: [], p95: [] };
    let withHits = 0;
    for (let r = 0; r < settings.runs; r++) {
      const apiMs: number[] = [];
      const bareMs: number[] = [];
      for (const q of queries.slice(WARM_UP_CALLS)) {
        const a = await viaApi(q);
        apiMs.push(a.ms);
        if (r === 0 && a.hits > 0) withHits += 1;
        bareMs.push((await inProcess(q)).ms);
      }
      api.p50.push(percentile(apiMs, 50));
      api.p95.push(percentile(apiMs, 95));
      bare.p50.push(percentile(bareMs, 50));
      bare.p95.push(percentile(bareMs, 95));
    }
    return {
      rows: [
        { metric: 'API p50 (POST /v2/search, limit 10)', unit: 'ms', values: api.p50, target: { text: '≤ 50 ms', ok: (m) => m <= 50 } },
        { metric: 'API p95', unit: 'ms', values: api.p95 },
        { metric: 'index query in-process p50 (the ceiling)', unit: 'ms', values: bare.p50 },
        { metric: 'index query in-process p95', unit: 'ms', values: bare.p95 },
      ],
      notes: [
        `${DOCUMENTS} pages of ${WORDS_PER_PAGE} words from a ${VOCABULARY}-word Zipf vocabulary; ${calls} sequential queries of 1–3 words per run, ${withHits} of them with results; each API call is a search workflow with one activity`,
      ],
    };
  } finally {
    await db.destroy();
    await bench.stop();
  }
}

export const searchLatency: Scenario = {
  name: 'search-latency',
  description:
    'Sequential POST /v2/search calls (limit 10, no scraping) over a built-in index of 10,000 stored pages, timed at the client, beside the same index query run in-process (the ceiling).',
  run,
};
