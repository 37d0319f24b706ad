/** What the bench reads about processes from /proc (Linux): memory, children, leftover browsers. */
import { readFileSync } from 'node:fs';
import { descendantsOf, listProcesses, type ProcessEntry } from '../scripts/process-tree.js';

/** Resident set size in bytes (VmRSS), or undefined once the process is gone. */
export function rssBytes(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Linux's USER_HZ: /proc reports CPU times in ticks of 1/100 s on every architecture Node runs on. */
const TICKS_PER_SECOND = 100;

/**
 * CPU seconds (user + system) of one process, plus those of its children it reaped unless `own`;
 * 0 once it is gone.
 */
export function cpuSeconds(pid: number, own = false): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // After the command name: state ppid … utime stime cutime cstime are fields 14–17 of stat(5).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const self = Number(fields[11]) + Number(fields[12]);
    return (own ? self : self + Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/**
 * CPU seconds used so far by `rootPid` and everything below it (e.g. a worker and its Chromium).
 * Processes that already exited count only once their parent reaped them.
 */
export function treeCpuSeconds(rootPid: number): number {
  return [rootPid, ...descendantsOf(rootPid, listProcesses()).map((p) => p.pid)].reduce((sum, pid) => sum + cpuSeconds(pid), 0);
}

/** CPU seconds of this process's children and their trees (for a stack: Temporal, API, workers). */
export function childrenCpuSeconds(): number {
  return listProcesses()
    .filter((p) => p.ppid === process.pid)
    .reduce((sum, p) => sum + treeCpuSeconds(p.pid), 0);
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

/** Chromium processes below `rootPid` (browser, zygotes, renderers, GPU and utility processes). */
export function chromiumBelow(rootPid: number): ProcessEntry[] {
  return descendantsOf(rootPid, listProcesses()).filter((p) => cmdline(p.pid).includes('chromium'));
}

/** Those of `entries` still running as the same processes (same pid and start time), zombies aside. */
export function stillRunning(entries: readonly ProcessEntry[]): ProcessEntry[] {
  const alive = new Map(listProcesses().map((p) => [p.pid, p.startTime]));
  return entries.filter((e) => {
    if (alive.get(e.pid) !== e.startTime) return false;
    try {
      return !/^State:\s+Z/m.test(readFileSync(`/proc/${e.pid}/status`, 'latin1'));
    } catch {
      return false;
    }
  });
}
