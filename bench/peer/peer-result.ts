/** What a peer crawl process reports on stdout, one line, for the bench to parse. */
export const PEER_RESULT_PREFIX = 'BENCH_RESULT ';

export interface PeerResult {
  /** Pages handled successfully. */
  pages: number;
  /** Wall time of the crawl itself, without process start-up and module loading. */
  seconds: number;
  markdownBytes: number;
  /** CPU seconds of the peer process and its children (Chromium) during the crawl. */
  cpuSeconds: number;
  /** How `cpuSeconds` was counted (bench/process-stats.ts `selfCpu`). */
  cpuCountedBy: 'cgroup' | 'tree';
}
