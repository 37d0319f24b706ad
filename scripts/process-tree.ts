/**
 * Finding and killing the descendants of a child process.
 *
 * Process groups are not enough: Playwright starts Chromium in a process group of its own, so
 * killing the worker's group leaves the browser behind. Walking parent links finds it.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessEntry {
  pid: number;
  ppid: number;
  /** Start time as the OS reports it; with the pid it identifies a process across pid reuse. */
  startTime: string;
}

export function listProcesses(): ProcessEntry[] {
  return process.platform === 'linux' ? listFromProc() : listFromPs();
}

/** Every process below `rootPid`, nearest first. */
export function descendantsOf(rootPid: number, table: readonly ProcessEntry[]): ProcessEntry[] {
  const byParent = new Map<number, ProcessEntry[]>();
  for (const entry of table) {
    const siblings = byParent.get(entry.ppid) ?? [];
    siblings.push(entry);
    byParent.set(entry.ppid, siblings);
  }
  const found: ProcessEntry[] = [];
  const queue = [rootPid];
  const seen = new Set(queue);
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    for (const child of byParent.get(pid) ?? []) {
      if (seen.has(child.pid)) continue;
      seen.add(child.pid);
      found.push(child);
      queue.push(child.pid);
    }
  }
  return found;
}

/**
 * SIGKILLs those of `entries` that are still the same processes (same pid and start time).
 * Returns how many were killed.
 */
export function killSurvivors(entries: readonly ProcessEntry[]): number {
  if (entries.length === 0) return 0;
  const alive = new Map(listProcesses().map((e) => [e.pid, e.startTime]));
  let killed = 0;
  for (const entry of entries) {
    if (alive.get(entry.pid) !== entry.startTime) continue;
    try {
      process.kill(entry.pid, 'SIGKILL');
      killed++;
    } catch {
      // It exited between the listing and the kill.
    }
  }
  return killed;
}

/** Parses one `/proc/<pid>/stat` line; the command name may itself contain spaces and parentheses. */
export function parseProcStat(line: string): ProcessEntry | undefined {
  const close = line.lastIndexOf(')');
  if (close < 0) return undefined;
  const pid = Number.parseInt(line, 10);
  // After the name: state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt
  // utime stime cutime cstime priority nice num_threads itrealvalue starttime ...
  const fields = line.slice(close + 2).split(' ');
  const ppid = Number(fields[1]);
  const startTime = fields[19];
  if (!Number.isInteger(pid) || !Number.isInteger(ppid) || startTime === undefined) return undefined;
  return { pid, ppid, startTime };
}

function listFromProc(): ProcessEntry[] {
  const entries: ProcessEntry[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const entry = parseProcStat(readFileSync(`/proc/${name}/stat`, 'utf8'));
      if (entry) entries.push(entry);
    } catch {
      // The process exited while we were listing.
    }
  }
  return entries;
}

function listFromPs(): ProcessEntry[] {
  const out = execFileSync('ps', ['-A', '-o', 'pid=', '-o', 'ppid=', '-o', 'lstart='], { encoding: 'utf8' });
  const entries: ProcessEntry[] = [];
  for (const line of out.split('\n')) {
    const match = /^\s*(\d+)\s+(\d+)\s+(.+?)\s*$/.exec(line);
    if (match) entries.push({ pid: Number(match[1]), ppid: Number(match[2]), startTime: match[3]! });
  }
  return entries;
}
