/** Runs one Crawlee crawl (bench/peer/crawlee-crawl.ts) in a child process and reads its result. */
import { spawnManaged } from '../../scripts/managed-process.js';
import { projectRoot } from '../../scripts/paths.js';
import { PEER_RESULT_PREFIX, type PeerResult } from './peer-result.js';

export interface CrawleeRun {
  crawler: 'cheerio' | 'playwright';
  startUrl: string;
  maxPages: number;
  concurrency: number;
}

export async function runCrawlee(run: CrawleeRun, log: (line: string) => void): Promise<PeerResult> {
  let result: PeerResult | undefined;
  const child = await spawnManaged({
    name: `crawlee-${run.crawler}`,
    command: process.execPath,
    args: ['--import', 'tsx', 'bench/peer/crawlee-crawl.ts', run.crawler, run.startUrl, String(run.maxPages), String(run.concurrency)],
    cwd: projectRoot,
    log: (line) => {
      const at = line.indexOf(PEER_RESULT_PREFIX);
      if (at >= 0) result = JSON.parse(line.slice(at + PEER_RESULT_PREFIX.length)) as PeerResult;
      else log(line);
    },
  });
  const exit = await child.exited;
  if (exit.code !== 0 || !result) {
    throw new Error(`the Crawlee ${run.crawler} crawl failed (exit ${exit.code ?? exit.signal}):\n${child.tail()}`);
  }
  return result;
}
