/**
 * Child processes that the dev stack owns: prefixed output, a tail for error messages, and a stop
 * that leaves nothing behind.
 *
 * Each child leads its own process group, so a terminal's Ctrl-C reaches only the parent, which
 * then shuts the children down in order (API and workers before Temporal) instead of everything
 * dying at once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { descendantsOf, killSurvivors, listProcesses, type ProcessEntry } from './process-tree.js';

export type LogSink = (line: string) => void;

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ManagedProcessOptions {
  /** Prefix for output lines, e.g. `api` or `worker-1`. */
  name: string;
  command: string;
  args: readonly string[];
  cwd?: string;
  /** The complete environment of the child. @default process.env */
  env?: NodeJS.ProcessEnv;
  log: LogSink;
  /** Output lines kept for error messages. @default 200 */
  tailLines?: number;
  /** Stop echoing output once we stop the process (it still goes to the tail). @default false */
  muteOnStop?: boolean;
}

export interface ManagedProcess {
  readonly name: string;
  readonly process: ChildProcess;
  readonly pid: number;
  /** Resolves when the process has exited and its leftovers were killed. */
  readonly exited: Promise<ExitInfo>;
  readonly exitInfo: ExitInfo | undefined;
  /** The last output lines, for error messages. */
  tail(): string;
  /**
   * Sends `signal` to the process itself, so it can shut down its own children gracefully.
   * Whatever of its process group and descendants outlives it is SIGKILLed once it exits.
   */
  kill(signal: NodeJS.Signals): void;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs: number): Promise<ExitInfo>;
}

const MANAGED = Symbol.for('trawl.managedProcesses');

/**
 * The children this process still runs, and whether its exit hook is in place. Kept on the
 * process, not the module: a test runner that evaluates this module again for each test file in
 * one process (vitest's single fork) would otherwise add an exit hook per file.
 */
const registry = ((globalThis as { [MANAGED]?: { live: Set<ManagedProcess>; exitHookInstalled: boolean } })[MANAGED] ??= {
  live: new Set(),
  exitHookInstalled: false,
});
const { live } = registry;

export async function spawnManaged(options: ManagedProcessOptions): Promise<ManagedProcess> {
  const { name, log } = options;
  const tailLines = options.tailLines ?? 200;
  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  try {
    await once(child, 'spawn');
  } catch (err) {
    throw new Error(`could not start ${name} (${options.command}): ${(err as Error).message}`, { cause: err });
  }
  const pid = child.pid!;

  const lines: string[] = [];
  let muted = false;
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
      lines.push(line);
      if (lines.length > tailLines) lines.shift();
      if (!muted) log(`[${name}] ${line}`);
    });
  }

  // Taken when we signal the process: after it dies, its orphans can no longer be found by parentage.
  let doomed: ProcessEntry[] = [];
  let exitInfo: ExitInfo | undefined;
  const closed = once(child, 'close');
  const exited = new Promise<ExitInfo>((resolve) => {
    child.once('exit', (code, signal) => {
      live.delete(managed);
      killGroup(pid);
      killSurvivors(doomed);
      // Its last words (often the error) may still be in the pipe, and callers quote the tail.
      // A leftover holding the pipe open must not delay us for long, though.
      void Promise.race([closed, sleep(500)]).then(() => {
        exitInfo = { code, signal };
        resolve(exitInfo);
      });
    });
  });

  const kill = (signal: NodeJS.Signals): void => {
    if (exitInfo) return;
    doomed = mergeEntries(doomed, descendantsOf(pid, listProcesses()));
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone; the exit handler cleans up.
    }
  };

  const managed: ManagedProcess = {
    name,
    process: child,
    pid,
    exited,
    get exitInfo() {
      return exitInfo;
    },
    tail: () => lines.join('\n'),
    kill,
    async stop(graceMs) {
      if (exitInfo) return exitInfo;
      muted = options.muteOnStop ?? false;
      kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), graceMs);
      });
      const first = await Promise.race([exited, timedOut]);
      clearTimeout(timer);
      if (first !== 'timeout') return first;
      log(`[${name}] did not exit within ${graceMs} ms of SIGTERM; sending SIGKILL`);
      kill('SIGKILL');
      killGroup(pid);
      return exited;
    },
  };
  live.add(managed);
  installExitHook();
  return managed;
}

export function describeExit(exit: ExitInfo): string {
  return exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code}`;
}

function mergeEntries(a: ProcessEntry[], b: ProcessEntry[]): ProcessEntry[] {
  const known = new Set(a.map((e) => `${e.pid}/${e.startTime}`));
  return [...a, ...b.filter((e) => !known.has(`${e.pid}/${e.startTime}`))];
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is already empty.
  }
}

/**
 * Children in their own process groups survive their parent. If this process exits without
 * stopping them (an uncaught error, a second Ctrl-C), take them down rather than leave them running.
 */
function installExitHook(): void {
  if (registry.exitHookInstalled) return;
  registry.exitHookInstalled = true;
  process.on('exit', () => {
    const table = listProcesses();
    for (const child of live) {
      const descendants = descendantsOf(child.pid, table);
      killGroup(child.pid);
      killSurvivors(descendants);
    }
  });
}
