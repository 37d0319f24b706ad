/**
 * Runs one crawl in a child process (a Crawlee peer, bench/peer/crawlee-crawl.ts, or the bare
 * ceiling, bench/ceiling/bare-crawl.ts) and reads the result line it prints.
 */
import { spawnManaged } from '../../scripts/managed-process.js';
import { projectRoot } from '../../scripts/paths.js';
import type { PeerSetup } from './crawlee-crawl.js';
import { PEER_RESULT_PREFIX, type PeerResult } from './peer-result.js';

export interface CrawleeRun {
  crawler: 'cheerio' | 'playwright';
  startUrl: string;
  maxPages: number;
  concurrency: number;
  /** @default 'tuned' */
  setup?: PeerSetup;
}

export async function runCrawlee(run: CrawleeRun, log: (line: string) => void): Promise<PeerResult> {
  const args = [run.crawler, run.startUrl, String(run.maxPages), String(run.concurrency), run.setup ?? 'tuned'];
  return runResultProcess(`crawlee-${run.crawler}`, 'bench/peer/crawlee-crawl.ts', args, log);
}

/** Spawns `node --import tsx <script> <args>` and returns its BENCH_RESULT; other lines go to `log`. */
export async function runResultProcess(name: string, script: string, args: string[], log: (line: string) => void): Promise<PeerResult> {
  let result: PeerResult | undefined;
  const child = await spawnManaged({
    name,
    command: process.execPath,
    args: ['--import', 'tsx', script, ...args],
    cwd: projectRoot,
    log: (line) => {
      const at = line.indexOf(PEER_RESULT_PREFIX);
      if (at >= 0) result = JSON.parse(line.slice(at + PEER_RESULT_PREFIX.length)) as PeerResult;
      else log(line);
    },
  });
  const exit = await child.exited;
  if (exit.code !== 0 || !result) {
    throw new Error(`the ${name} crawl failed (exit ${exit.code ?? exit.signal}):\n${child.tail()}`);
  }
  return result;
}
