/** What the bench reads about processes from /proc (Linux): memory, children, leftover browsers. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { descendantsOf, listProcesses, type ProcessEntry } from '../scripts/process-tree.js';

/** A `<field>: N kB` line of a /proc file, in bytes; undefined once the process is gone. */
function procKilobytes(pid: number, file: string, field: string): number | undefined {
  try {
    const line = readFileSync(`/proc/${pid}/${file}`, 'latin1')
      .split('\n')
      .find((l) => l.startsWith(`${field}:`));
    return line === undefined ? undefined : Number(line.slice(field.length + 1).trim().split(/\s+/)[0]) * 1024;
  } catch {
    return undefined;
  }
}

/** Resident set size in bytes (VmRSS), or undefined once the process is gone. */
export function rssBytes(pid: number): number | undefined {
  return procKilobytes(pid, 'status', 'VmRSS');
}

/**
 * Proportional set size in bytes (Pss in smaps_rollup): each shared page counted once across the
 * processes sharing it, so a sum over a browser's processes is not inflated; undefined once gone.
 */
export function pssBytes(pid: number): number | undefined {
  return procKilobytes(pid, 'smaps_rollup', 'Pss');
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

/**
 * CPU seconds the local Postgres server has used so far: its postmaster and every backend, the
 * ones that exited too (the postmaster reaps them). The whole server, whoever it served; 0 where
 * no Postgres runs on this machine (DATABASE_URL elsewhere).
 */
export function postgresCpuSeconds(): number {
  const table = listProcesses();
  const isPostgres = (pid: number) => {
    try {
      return readFileSync(`/proc/${pid}/comm`, 'latin1').trim() === 'postgres';
    } catch {
      return false;
    }
  };
  const postmasters = table.filter((p) => isPostgres(p.pid) && !isPostgres(p.ppid));
  return postmasters.reduce((sum, p) => sum + treeCpuSeconds(p.pid), 0);
}

/**
 * CPU seconds used by a process tree, exited processes included: a cgroup v2 the tree is moved
 * into counts every process that ever ran in it. Summing the tree from /proc cannot: a process's
 * CPU reaches its parent's only when the parent reaps it, and Chromium's zygote, which reaps the
 * renderers, is itself left to init when its browser exits. A browser retired mid-crawl took its
 * whole renderer history out of the sum (measured: 2.1 of 4.2 s gone at one browser's close).
 */
export interface CpuGroup {
  seconds(): number;
  /** Moves what is left of the tree back and removes the group. */
  close(): void;
}

function cgroup2Mount(): string | undefined {
  try {
    // mountinfo: ... <mount point> ... - <fs type> <source> <options>
    const line = readFileSync('/proc/self/mountinfo', 'latin1')
      .split('\n')
      .find((l) => l.split(' - ')[1]?.startsWith('cgroup2 '));
    return line?.split(' ')[4];
  } catch {
    return undefined;
  }
}

/** Where this process sits in the cgroup v2 hierarchy, relative to its mount. */
function ownCgroup2Path(): string {
  const entry = readFileSync('/proc/self/cgroup', 'latin1')
    .split('\n')
    .find((l) => l.startsWith('0::'));
  return entry?.slice(3) ?? '/';
}

/**
 * Moves `rootPid` and its descendants into a new cgroup v2; processes they start later join it.
 * Undefined where cgroup v2 is not mounted or not writable (the caller then sums the tree).
 */
export function cpuGroupFor(rootPid: number, name: string): CpuGroup | undefined {
  const mount = cgroup2Mount();
  if (!mount) return undefined;
  const parent = join(mount, ownCgroup2Path());
  const dir = join(parent, `trawl-bench-${process.pid}-${name}`);
  const move = (to: string, pids: readonly number[]) => {
    for (const pid of pids) {
      try {
        writeFileSync(join(to, 'cgroup.procs'), String(pid));
      } catch {
        // It exited meanwhile.
      }
    }
  };
  const members = () => readFileSync(join(dir, 'cgroup.procs'), 'latin1').split('\n').filter(Boolean).map(Number);
  try {
    mkdirSync(dir);
    writeFileSync(join(dir, 'cgroup.procs'), String(rootPid));
  } catch {
    try {
      rmdirSync(dir);
    } catch {
      // Never created.
    }
    return undefined;
  }
  move(dir, descendantsOf(rootPid, listProcesses()).map((p) => p.pid));
  return {
    seconds: () => Number(/^usage_usec (\d+)$/m.exec(readFileSync(join(dir, 'cpu.stat'), 'latin1'))?.[1] ?? 0) / 1e6,
    close: () => {
      try {
        move(parent, members());
        rmdirSync(dir);
      } catch {
        // Already gone.
      }
    },
  };
}

/** CPU seconds used by this process and what it starts, and how they are counted. */
export interface SelfCpu {
  seconds(): number;
  /** 'cgroup': exited processes included; 'tree': a browser retired meanwhile took its renderers' CPU out. */
  countedBy: 'cgroup' | 'tree';
}

/**
 * Counts this process and everything it starts afterwards (a peer's or the ceiling's Chromium)
 * the way the bench counts the worker: through a cgroup v2 of its own where it can, so a browser
 * retired mid-crawl (every 200 pages in the pool, every 100 in Crawlee's) still counts; else the
 * tree sum. Call it before the browser starts; the group is removed when the process exits.
 */
export function selfCpu(name: string): SelfCpu {
  const group = cpuGroupFor(process.pid, name);
  if (!group) return { seconds: () => treeCpuSeconds(process.pid), countedBy: 'tree' };
  process.once('exit', group.close);
  return { seconds: group.seconds, countedBy: 'cgroup' };
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

/**
 * Confines a process and everything below it, every thread included, to one CPU (util-linux
 * `taskset`); what they start later inherits it, Chromium's renderers too, since its zygote is
 * pinned. False where the root cannot be pinned (no taskset, not Linux, no such CPU).
 */
export function pinTree(rootPid: number, cpu: number): boolean {
  const pin = (pid: number, threads = ['--all-tasks']) =>
    execFileSync('taskset', [...threads, '--pid', '--cpu-list', String(cpu), String(pid)], { stdio: 'ignore' });
  try {
    // With --all-tasks, taskset says nothing of a pid that does not exist.
    pin(rootPid, []);
    pin(rootPid);
  } catch {
    return false;
  }
  for (const { pid } of descendantsOf(rootPid, listProcesses())) {
    try {
      pin(pid);
    } catch {
      // It exited meanwhile.
    }
  }
  return true;
}
