/**
 * Live browser sessions (issue #36) through the public API: the time from POST /v2/browser to
 * the answer of its first execute, the same for a scrape's interact session (its page opened at
 * the scraped URL), the p50 of a trivial execute in bash and in node, and how many sessions one
 * worker holds before its memory (PSS) passes MEMORY_BOUND, each session parked on a small page.
 */
import { descendantsOf, listProcesses } from '../../scripts/process-tree.js';
import { startPageServer } from '../../test/helpers/page-server.js';
import { pssBytes } from '../process-stats.js';
import type { BenchSettings, Scenario, ScenarioResult } from '../scenario.js';
import { percentile } from '../stats.js';
import { startBenchStack } from '../trawl/bench-stack.js';

const EXECUTES = 50;
/** The worker and its browsers together. */
const MEMORY_BOUND = 2 * 1024 ** 3;
const MAX_SESSIONS = 48;

/** The worker and everything it started (its Chromiums, the sandbox host), shared pages counted once. */
function treeMemory(rootPid: number): number {
  const pids = [rootPid, ...descendantsOf(rootPid, listProcesses()).map((p) => p.pid)];
  return pids.reduce((sum, pid) => sum + (pssBytes(pid) ?? 0), 0);
}

async function run(settings: BenchSettings): Promise<ScenarioResult> {
  const site = await startPageServer({ '/': '<h1>Session page</h1><p>A small page for a parked session.</p><button id="b">Press</button>' });
  const bench = await startBenchStack({ env: { BROWSER_SESSIONS_PER_WORKER: String(MAX_SESSIONS + 2), ALLOW_PRIVATE_NETWORK: 'true' } });
  const call = async (path: string, body?: unknown, method = body === undefined ? 'GET' : 'POST') => {
    const res = await fetch(`${bench.apiUrl}${path}`, { method, headers: { authorization: `Bearer ${bench.apiKey}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const json = (await res.json()) as Record<string, unknown>;
    if (!res.ok || json.success === false) throw new Error(`${method} ${path}: HTTP ${res.status} ${JSON.stringify(json).slice(0, 300)}\n${bench.tail(20)}`);
    return json;
  };
  const timed = async (work: () => Promise<unknown>) => {
    const started = performance.now();
    await work();
    return performance.now() - started;
  };
  const rows = { fresh: [] as number[], scrape: [] as number[], bash: [] as number[], node: [] as number[], held: [] as number[], perSession: [] as number[] };
  try {
    for (let r = 0; r < settings.runs; r++) {
      let id = '';
      rows.fresh.push(
        await timed(async () => {
          id = String((await call('/v2/browser', { ttl: 300 })).id);
          await call(`/v2/browser/${id}/execute`, { code: `open ${site.origin}/`, language: 'bash' });
        }),
      );
      const bash: number[] = [];
      const node: number[] = [];
      for (let i = 0; i < EXECUTES; i++) {
        bash.push(await timed(() => call(`/v2/browser/${id}/execute`, { code: 'get url', language: 'bash' })));
        node.push(await timed(() => call(`/v2/browser/${id}/execute`, { code: 'return 1', language: 'node' })));
      }
      rows.bash.push(percentile(bash, 50));
      rows.node.push(percentile(node, 50));
      await call(`/v2/browser/${id}`, undefined, 'DELETE');
      const scraped = (await call('/v2/scrape', { url: `${site.origin}/`, formats: ['markdown'] })) as { data: { metadata: { scrapeId: string } } };
      const scrapeId = scraped.data.metadata.scrapeId;
      rows.scrape.push(await timed(() => call(`/v2/scrape/${scrapeId}/interact`, { code: 'get title', language: 'bash' })));
      await call(`/v2/scrape/${scrapeId}/interact`, undefined, 'DELETE');
    }
    // Capacity, once: sessions opened one after another, each parked on the page.
    const workerPid = bench.stack.workers[0]!.pid;
    const baseline = treeMemory(workerPid);
    const open: string[] = [];
    let memory = baseline;
    while (open.length < MAX_SESSIONS && memory < MEMORY_BOUND) {
      const id = String((await call('/v2/browser', { ttl: 600 })).id);
      await call(`/v2/browser/${id}/execute`, { code: `open ${site.origin}/`, language: 'bash' });
      open.push(id);
      memory = treeMemory(workerPid);
    }
    rows.held.push(open.length);
    rows.perSession.push((memory - baseline) / open.length / 1024 ** 2);
    for (const id of open) await call(`/v2/browser/${id}`, undefined, 'DELETE');
    return {
      rows: [
        { metric: 'fresh session: create + first execute (open a page)', unit: 'ms', values: rows.fresh },
        { metric: "scrape's session: first interact (opens at the scraped URL)", unit: 'ms', values: rows.scrape },
        { metric: 'execute p50, bash `get url`', unit: 'ms', values: rows.bash },
        { metric: 'execute p50, node `return 1`', unit: 'ms', values: rows.node },
        { metric: `sessions held by one worker (cap ${MAX_SESSIONS}) before the worker and its Chromiums pass 2 GiB (PSS)`, unit: 'sessions', values: rows.held },
        { metric: 'memory per parked session (PSS of the worker and its processes)', unit: 'MiB', values: rows.perSession },
      ],
      notes: [
        `${EXECUTES} sequential executes of each kind per run; every execute also stores a JPEG replay frame`,
        `capacity: PSS summed over the worker and every process below it (shared pages counted once); baseline ${(baseline / 1024 ** 2).toFixed(0)} MiB before the first parked session, the scraping Chromium included`,
      ],
    };
  } finally {
    await bench.stop();
    await site.close();
  }
}

export const interactScenario: Scenario = {
  name: 'interact',
  description:
    'Live browser sessions through the public API: POST /v2/browser then its first execute (open a page), a scrape followed by its first interact, the p50 of 50 trivial executes in bash and in node, and the sessions one worker holds, each parked on a small page, before the worker and its processes pass 2 GiB (proportional set size, shared pages counted once).',
  run,
};
