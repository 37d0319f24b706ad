/**
 * The worker's side of the sandbox (host.mjs): one host process per worker, started on first use
 * and again after it dies, running many sessions' code at once, each in its own isolate.
 *
 * Bounds, per run: the isolate's heap (`memoryMb`), wall time (`timeoutMs`, enforced inside the
 * host by disposing the isolate, and here by killing the host if it does not answer shortly
 * after), and output (`outputBytes` for stdout, stderr and the result together). The host has no
 * environment, reads no file but its own code and isolated-vm's, starts no process or thread
 * (Node's permission model), and reaches the page only through `onCall`, which the caller
 * answers from an allowlist (browser/interact/page-bridge.ts).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface SandboxOutcome {
  stdout: string;
  stderr: string;
  /** The code's return value as JSON, when it returned one. */
  result?: string;
  exitCode: number;
  /** Stopped at a limit (time or memory), or its host died. */
  killed: boolean;
  /** Output past `outputBytes` was dropped. */
  truncated: boolean;
}

export interface SandboxRun {
  code: string;
  timeoutMs: number;
  /** A page method the code called, with its arguments as JSON; resolves to a JSON-serialisable value. */
  onCall(method: string, argsJson: string): Promise<unknown>;
}

export interface SandboxOptions {
  /** @default 64 */
  memoryMb?: number;
  /** @default 1 MiB */
  outputBytes?: number;
  /** Time past a run's timeout before its host is killed. @default 5000 */
  graceMs?: number;
}

export interface Sandbox {
  run(run: SandboxRun): Promise<SandboxOutcome>;
  /** The host's pid, while one runs (tests kill it). */
  pid(): number | undefined;
  close(): Promise<void>;
}

const HOST = fileURLToPath(new URL('./host.mjs', import.meta.url));
const require = createRequire(import.meta.url);
const ISOLATED_VM = dirname(require.resolve('isolated-vm/package.json'));
const NODE_GYP_BUILD = dirname(createRequire(`${ISOLATED_VM}/`).resolve('node-gyp-build/package.json'));

/** Node's permission model: read only the code the host loads (node-gyp-build also probes for Alpine). */
const HOST_FLAGS = [
  '--permission',
  '--allow-addons',
  `--allow-fs-read=${dirname(HOST)}`,
  `--allow-fs-read=${ISOLATED_VM}`,
  `--allow-fs-read=${NODE_GYP_BUILD}`,
  '--allow-fs-read=/etc/alpine-release',
  '--max-old-space-size=256',
  // The warning that --allow-addons weakens the model: the addon is isolated-vm, and nothing else loads.
  '--no-warnings',
];

interface Pending {
  run: SandboxRun;
  /** The host the run went to: a host's death ends only its own runs. */
  child: ChildProcess;
  resolve(outcome: SandboxOutcome): void;
  watchdog: NodeJS.Timeout;
}

type HostMessage =
  | { type: 'call'; id: number; callId: number; method: string; args: string }
  | ({ type: 'done'; id: number } & SandboxOutcome);

export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const memoryMb = options.memoryMb ?? 64;
  const outputBytes = options.outputBytes ?? 1024 * 1024;
  const graceMs = options.graceMs ?? 5_000;
  const pending = new Map<number, Pending>();
  let host: ChildProcess | undefined;
  let nextId = 0;

  function lost(child: ChildProcess, why: string): void {
    if (host === child) host = undefined;
    for (const [id, p] of pending) {
      if (p.child !== child) continue;
      pending.delete(id);
      clearTimeout(p.watchdog);
      p.resolve({ stdout: '', stderr: `Killed: ${why}\n`, exitCode: 137, killed: true, truncated: false });
    }
  }

  function start(): ChildProcess {
    const child = fork(HOST, [], { execPath: process.execPath, execArgv: HOST_FLAGS, env: {}, stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
    child.on('message', (message: HostMessage) => onMessage(child, message));
    child.on('exit', () => lost(child, 'the sandbox process ended'));
    child.on('error', () => lost(child, 'the sandbox process failed'));
    return child;
  }

  function onMessage(child: ChildProcess, message: HostMessage): void {
    const p = pending.get(message.id);
    if (!p) return;
    if (message.type === 'done') {
      pending.delete(message.id);
      clearTimeout(p.watchdog);
      const { type: _t, id: _i, ...outcome } = message;
      p.resolve(outcome);
      return;
    }
    p.run.onCall(message.method, message.args).then(
      (value) => child.send({ type: 'reply', id: message.id, callId: message.callId, ok: true, value: value === undefined ? undefined : JSON.stringify(value) }),
      (err: unknown) => child.send({ type: 'reply', id: message.id, callId: message.callId, ok: false, error: err instanceof Error ? err.message : String(err) }),
    ).catch(() => undefined);
  }

  return {
    run(run) {
      host ??= start();
      const child = host;
      const id = nextId++;
      return new Promise<SandboxOutcome>((resolve) => {
        // The host disposes an isolate at its timeout; a host that does not answer by then is stuck.
        const watchdog = setTimeout(() => child.kill('SIGKILL'), run.timeoutMs + graceMs);
        pending.set(id, { run, child, resolve, watchdog });
        child.send({ type: 'run', id, code: run.code, timeoutMs: run.timeoutMs, memoryMb, outputBytes });
      });
    },
    pid: () => host?.pid,
    async close() {
      const child = host;
      host = undefined;
      if (child && child.exitCode === null) {
        const exited = new Promise((done) => child.once('exit', done));
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}
