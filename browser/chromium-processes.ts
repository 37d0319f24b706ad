/**
 * Finding and killing the Chromium processes a pool launched, through /proc (Linux only).
 *
 * Playwright exposes no process handle for a launched browser, and orphaned Chromium processes
 * are a classic way for scrapers to run out of memory. So every browser gets a marker in its
 * environment; helpers the browser starts itself (zygotes, renderers, GPU and network
 * services) lose that environment but stay in the browser's process group, because Playwright
 * starts the browser as a group leader. Crashpad handlers leave the group but keep the marker.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Environment variable set on each launched browser; its value is `<poolId>/<launch number>`. */
export const BROWSER_MARKER_ENV = 'TRAWL_BROWSER';

export interface ChromiumProcess {
  pid: number;
  ppid: number;
  pgid: number;
  /** One-letter state from /proc/<pid>/stat; `Z` is a zombie waiting for its parent to reap it. */
  state: string;
  cmdline: string;
}

interface ProcEntry extends ChromiumProcess {
  marker?: string;
}

function readProc(pid: number): ProcEntry | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // The command name in parentheses may itself contain spaces or parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const entry: ProcEntry = {
      pid,
      state: fields[0] ?? '?',
      ppid: Number(fields[1]),
      pgid: Number(fields[2]),
      cmdline: '',
    };
    try {
      entry.cmdline = readFileSync(`/proc/${pid}/cmdline`, 'latin1').replaceAll('\0', ' ').trim();
      const prefix = `${BROWSER_MARKER_ENV}=`;
      const marker = readFileSync(`/proc/${pid}/environ`, 'latin1')
        .split('\0')
        .find((kv) => kv.startsWith(prefix));
      if (marker) entry.marker = marker.slice(prefix.length);
    } catch {
      // Zombies and processes of other users have no readable environment; stat is enough.
    }
    return entry;
  } catch {
    return undefined;
  }
}

function allProcesses(): ProcEntry[] {
  const out: ProcEntry[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const entry = readProc(Number(name));
    if (entry) out.push(entry);
  }
  return out;
}

/**
 * Every live process belonging to browsers whose marker starts with `markerPrefix`
 * (`<poolId>/` for a whole pool, `<poolId>/<n>` for one launch).
 */
export function findChromiumProcesses(markerPrefix: string): ChromiumProcess[] {
  const procs = allProcesses();
  const marked = procs.filter((p) => p.marker?.startsWith(markerPrefix));
  const groups = new Set(marked.filter((p) => p.pid === p.pgid).map((p) => p.pgid));
  return procs
    .filter((p) => p.marker?.startsWith(markerPrefix) || groups.has(p.pgid))
    .map(({ pid, ppid, pgid, state, cmdline }) => ({ pid, ppid, pgid, state, cmdline }));
}

/** SIGKILL a browser's whole process group plus its crashpad handlers. Returns how many were signalled. */
export function killChromium(marker: string): number {
  let signalled = 0;
  for (const p of allProcesses()) {
    if (p.marker !== marker || p.state === 'Z') continue;
    try {
      process.kill(p.pid === p.pgid ? -p.pgid : p.pid, 'SIGKILL');
      signalled++;
    } catch {
      // Already gone.
    }
  }
  return signalled;
}

/**
 * The argument list of a launch's browser process, or undefined where /proc cannot tell (another
 * OS, a hidden /proc). Operators' wrappers may exec Chromium in place or run it as a child; the
 * browser is the marked process Playwright's `--remote-debugging-pipe` reached that is no
 * Chromium helper (`--type=`) and has no such process below it (a wrapper shell that did not exec).
 */
export function browserCommandLine(marker: string): string[] | undefined {
  let candidates: { pid: number; ppid: number; argv: string[] }[];
  try {
    candidates = allProcesses()
      .filter((p) => p.marker === marker && p.state !== 'Z')
      .map((p) => ({ pid: p.pid, ppid: p.ppid, argv: readArgv(p.pid) }))
      .filter(({ argv }) => argv.includes('--remote-debugging-pipe') && !argv.some((arg) => arg.startsWith('--type=')));
  } catch {
    return undefined;
  }
  const parents = new Set(candidates.map((c) => c.ppid));
  return candidates.find((c) => !parents.has(c.pid))?.argv;
}

function readArgv(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').filter(Boolean);
  } catch {
    return [];
  }
}
