/**
 * The whole service on one machine: a Temporal dev server (or an external one), the Postgres
 * database and its migrations, worker processes and the API. `npm start` runs it for people; the
 * e2e tests run it in their global setup and use the restart and kill handles for durability tests.
 *
 * API and workers are plain child processes (`node --import tsx <entry>`, or `node dist/<entry>.js`
 * when compiled), configured by env and ready when `GET /health` answers 200 (API) or when they
 * poll their task queue (workers).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { ensureDatabase, redactUrl, runMigrations } from './database.js';
import { describeExit, spawnManaged, type ExitInfo, type LogSink, type ManagedProcess } from './managed-process.js';
import { projectRoot } from './paths.js';
import { assertPortFree } from '../lib/ports.js';
import { findOrBuildTemporalCli } from './temporal-cli.js';
import { startTemporalServer, waitForTemporal, type DynamicConfigValue, type TemporalServer } from './temporal-server.js';

export { ensureDatabase } from './database.js';

/**
 * A worker allocates a page's HTML, Document, index words and SQL for every page it stores, all
 * short-lived, and V8's default semi-spaces (16 MB) make it scavenge often: with 64 MB the static
 * crawl's CPU per page fell from 21.8 to 18.6 ms (medians of 3 and 5 runs, bench/RESULTS.md,
 * 2026-11-26), for up to 192 MB more heap. The same flag is in package.json's `worker` script and
 * docker-compose.yml.
 */
export const WORKER_NODE_FLAGS = ['--max-semi-space-size=64'];

export interface EmbeddedTemporalOptions {
  /** @default found by findOrBuildTemporalCli() */
  cliPath?: string;
  port: number;
  /** @default none: the server runs headless */
  uiPort?: number;
  /** Holds `temporal.db`; reused across restarts. */
  dataDir: string;
  dynamicConfig?: Readonly<Record<string, DynamicConfigValue>>;
}

/** `{ address }` uses a running server (TEMPORAL_ADDRESS); anything else starts a dev server. */
export type StackTemporalOptions = { address: string } | EmbeddedTemporalOptions;

export interface StackOptions {
  databaseUrl: string;
  temporal: StackTemporalOptions;
  apiPort: number;
  /** @default '127.0.0.1' */
  apiHost?: string;
  /** @default 1 */
  workerCount?: number;
  /** Extra environment for the API and worker processes, e.g. `{ ALLOW_PRIVATE_NETWORK: 'true' }`. */
  env?: Readonly<Record<string, string>>;
  /** Receives every line: the stack's own (`[stack] …`) and the children's, prefixed by role. @default console.log */
  log?: LogSink;
  /** Per readiness wait (Temporal, API health, each worker polling). @default 60_000 */
  readyTimeoutMs?: number;
  /** How long a child gets after SIGTERM before SIGKILL; above the worker's 20 s shutdownGraceTime. @default 30_000 */
  stopGraceMs?: number;
  /** Aborting it during start-up stops whatever was started and rejects. */
  signal?: AbortSignal;
  /** Called when a child dies after start-up without being asked to, e.g. the API crashing. */
  onUnexpectedExit?: (name: string, exit: ExitInfo) => void;
  /** Where `api/`, `worker/` and `db/` live. @default the repository root */
  projectRoot?: string;
  /** Run the API and workers from dist/ (`npm run build`) with plain node, as production does. @default false: the sources through tsx */
  compiled?: boolean;
}

export interface StackWorker {
  /** `worker-<n>`, also its output prefix. */
  readonly name: string;
  readonly pid: number;
  readonly exited: Promise<ExitInfo>;
  /** Sends `signal` (SIGKILL simulates a crash) and resolves once it exited and its browser is gone. */
  kill(signal: NodeJS.Signals): Promise<ExitInfo>;
}

export interface Stack {
  readonly apiUrl: string;
  readonly temporalAddress: string;
  readonly uiUrl?: string;
  /** The API process, while it runs (benchmarks read its memory). */
  readonly apiPid: number | undefined;
  /** The workers currently running. */
  readonly workers: readonly StackWorker[];
  /** Starts one more worker, with `env` on top of the stack's, and resolves once it polls its task queue. */
  startWorker(env?: NodeJS.ProcessEnv): Promise<StackWorker>;
  /** Stops the API gracefully and starts it again on the same port. */
  restartApi(): Promise<void>;
  /** Stops the Temporal dev server and starts it again on the same SQLite file. */
  restartTemporal(): Promise<void>;
  /** API and workers first (SIGTERM, grace, SIGKILL), then Temporal. Safe to call twice. */
  stop(): Promise<void>;
}

export async function startStack(options: StackOptions): Promise<Stack> {
  const stack = new LocalStack(options);
  try {
    await stack.start();
  } catch (err) {
    await stack.stop();
    throw err;
  }
  return stack;
}

// temporal.api.enums.v1.TaskQueueType; @temporalio/proto is not a direct dependency.
const TASK_QUEUE_TYPE_WORKFLOW = 1;
const TASK_QUEUE_TYPE_ACTIVITY = 2;

class LocalStack implements Stack {
  readonly apiUrl: string;
  readonly temporalAddress: string;
  readonly uiUrl?: string;
  private readonly log: LogSink;
  private readonly root: string;
  private readonly apiHost: string;
  private readonly readyTimeoutMs: number;
  private readonly stopGraceMs: number;
  private readonly env: NodeJS.ProcessEnv;
  private temporal?: TemporalServer;
  private api?: ManagedProcess;
  private readonly workerProcesses = new Map<StackWorker, ManagedProcess>();
  /** Children we stopped or killed on purpose, so their exit is not reported as a crash. */
  private readonly expectedExits = new WeakSet<object>();
  private workerSequence = 0;
  private started = false;
  private stopping?: Promise<void>;

  constructor(private readonly options: StackOptions) {
    this.log = options.log ?? console.log;
    this.root = options.projectRoot ?? projectRoot;
    this.apiHost = options.apiHost ?? '127.0.0.1';
    this.readyTimeoutMs = options.readyTimeoutMs ?? 60_000;
    this.stopGraceMs = options.stopGraceMs ?? 30_000;
    this.apiUrl = `http://${urlHost(this.apiHost)}:${options.apiPort}`;
    const temporal = options.temporal;
    if ('address' in temporal) {
      this.temporalAddress = temporal.address;
    } else {
      this.temporalAddress = `127.0.0.1:${temporal.port}`;
      if (temporal.uiPort !== undefined) this.uiUrl = `http://127.0.0.1:${temporal.uiPort}`;
    }
    this.env = {
      ...process.env,
      ...options.env,
      DATABASE_URL: options.databaseUrl,
      TEMPORAL_ADDRESS: this.temporalAddress,
    };
  }

  get workers(): readonly StackWorker[] {
    return [...this.workerProcesses.keys()];
  }

  async start(): Promise<void> {
    await assertPortFree(
      this.apiHost,
      this.options.apiPort,
      'API',
      'Is `npm start` already running? Set PORT to choose another port.',
    );
    await allOrAbort(
      [(signal) => this.startTemporal(signal), (signal) => this.prepareDatabase(signal)],
      this.options.signal,
    );
    const workerCount = this.options.workerCount ?? 1;
    this.log(`[stack] starting the API and ${workerCount} worker(s)`);
    const workers = Array.from({ length: workerCount }, () => (signal: AbortSignal) => this.spawnWorker(signal));
    await allOrAbort([(signal) => this.startApi(signal), ...workers], this.options.signal);
    this.started = true;
  }

  get apiPid(): number | undefined {
    return this.api?.pid;
  }

  startWorker(env?: NodeJS.ProcessEnv): Promise<StackWorker> {
    return this.spawnWorker(undefined, env);
  }

  async restartApi(): Promise<void> {
    if (this.api) {
      this.expectedExits.add(this.api);
      await this.api.stop(this.stopGraceMs);
    }
    await this.startApi();
  }

  async restartTemporal(): Promise<void> {
    if ('address' in this.options.temporal) {
      throw new Error('restartTemporal() needs a stack that runs its own Temporal server, not an external TEMPORAL_ADDRESS.');
    }
    await this.stopTemporal();
    await this.startTemporal();
  }

  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  private async shutdown(): Promise<void> {
    const apps = [...(this.api ? [this.api] : []), ...this.workerProcesses.values()].filter((c) => !c.exitInfo);
    if (apps.length > 0) this.log(`[stack] stopping ${apps.map((c) => c.name).join(', ')}`);
    for (const child of apps) this.expectedExits.add(child);
    await Promise.all(apps.map((child) => child.stop(this.stopGraceMs)));
    await this.stopTemporal();
    this.log('[stack] stopped');
  }

  private async startTemporal(signal?: AbortSignal): Promise<void> {
    const temporal = this.options.temporal;
    if ('address' in temporal) {
      await waitForTemporal(temporal.address, undefined, this.readyTimeoutMs, signal);
      this.log(`[stack] using the Temporal server at ${temporal.address}`);
      return;
    }
    const cliPath = temporal.cliPath ?? (await findOrBuildTemporalCli({ log: this.log }));
    const server = await startTemporalServer({
      cliPath,
      port: temporal.port,
      uiPort: temporal.uiPort,
      dataDir: temporal.dataDir,
      dynamicConfig: temporal.dynamicConfig,
      log: this.log,
      readyTimeoutMs: this.readyTimeoutMs,
      signal,
    });
    this.temporal = server;
    this.watch('temporal', server, server.exited, () => {
      if (this.temporal === server) this.temporal = undefined;
    });
    this.log(`[stack] temporal ready at ${server.address}`);
  }

  private async stopTemporal(): Promise<void> {
    const server = this.temporal;
    if (!server) return;
    this.expectedExits.add(server);
    await server.stop();
    this.temporal = undefined;
  }

  private async prepareDatabase(signal: AbortSignal): Promise<void> {
    const { created } = await ensureDatabase(this.options.databaseUrl);
    this.log(`[stack] database ${redactUrl(this.options.databaseUrl)}${created ? ' created' : ''}; running migrations`);
    await runMigrations({ databaseUrl: this.options.databaseUrl, projectRoot: this.root, log: this.log, signal });
  }

  private async startApi(signal?: AbortSignal): Promise<void> {
    const child = await this.spawnNode('api', 'api/server', {
      ...this.env,
      PORT: String(this.options.apiPort),
      HOST: this.apiHost,
    });
    this.api = child;
    this.watch('api', child, child.exited, () => {
      if (this.api === child) this.api = undefined;
    });
    await this.waitForHealth(child, signal);
    this.log(`[stack] api ready at ${this.apiUrl}`);
  }

  private async spawnWorker(signal?: AbortSignal, env?: NodeJS.ProcessEnv): Promise<StackWorker> {
    const name = `worker-${++this.workerSequence}`;
    const child = await this.spawnNode(name, 'worker/main', { ...this.env, ...env }, WORKER_NODE_FLAGS);
    const worker: StackWorker = {
      name,
      pid: child.pid,
      exited: child.exited,
      kill: (killSignal) => {
        this.expectedExits.add(child);
        child.kill(killSignal);
        return child.exited;
      },
    };
    this.workerProcesses.set(worker, child);
    this.watch(name, child, child.exited, () => this.workerProcesses.delete(worker));
    await this.waitForPoller(child, signal);
    this.log(`[stack] ${name} (pid ${child.pid}) is polling`);
    return worker;
  }

  /** `entry` without its extension: `api/server` runs `api/server.ts`, or `dist/api/server.js` compiled. */
  private spawnNode(name: string, entry: string, env: NodeJS.ProcessEnv, flags: readonly string[] = []): Promise<ManagedProcess> {
    // `node --import tsx` rather than npx or the tsx CLI: one process, no wrapper relaying signals.
    const args = this.options.compiled ? [...flags, `dist/${entry}.js`] : [...flags, '--import', 'tsx', `${entry}.ts`];
    return spawnManaged({ name, command: process.execPath, args, cwd: this.root, env, log: this.log });
  }

  private watch(name: string, handle: object, exited: Promise<ExitInfo>, forget: () => void): void {
    void exited.then((exit) => {
      forget();
      if (!this.started || this.stopping || this.expectedExits.has(handle)) return;
      this.log(`[stack] ${name} exited unexpectedly (${describeExit(exit)})`);
      this.options.onUnexpectedExit?.(name, exit);
    });
  }

  private async waitForHealth(child: ManagedProcess, signal?: AbortSignal): Promise<void> {
    const url = `${this.apiUrl}/health`;
    const deadline = Date.now() + this.readyTimeoutMs;
    let last = 'no answer';
    for (;;) {
      signal?.throwIfAborted();
      assertRunning(child);
      if (Date.now() > deadline) {
        throw new Error(`The API did not answer 200 on ${url} within ${this.readyTimeoutMs / 1000} s (last: ${last}). Its output:\n${child.tail()}`);
      }
      try {
        const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
        await response.body?.cancel();
        if (response.status === 200) return;
        last = `HTTP ${response.status}`;
      } catch (err) {
        last = (err as Error).message;
      }
      await sleep(200, undefined, { signal });
    }
  }

  /**
   * A worker is ready once Temporal lists a poller with its identity, which the SDK sets to
   * `<pid>@<hostname>`; that also proves its workflow bundle built and its connection works.
   */
  private async waitForPoller(child: ManagedProcess, signal?: AbortSignal): Promise<void> {
    const namespace = this.env.TEMPORAL_NAMESPACE || 'default';
    const taskQueue = this.env.TEMPORAL_TASK_QUEUE || 'trawl';
    const deadline = Date.now() + this.readyTimeoutMs;
    let connection: Connection | undefined;
    try {
      for (;;) {
        signal?.throwIfAborted();
        assertRunning(child);
        if (Date.now() > deadline) {
          throw new Error(
            `${child.name} did not poll task queue "${taskQueue}" on ${this.temporalAddress} within ${this.readyTimeoutMs / 1000} s. ` +
              `Its output:\n${child.tail()}`,
          );
        }
        try {
          connection ??= await Connection.connect({ address: this.temporalAddress, connectTimeout: 1_000 });
          if (await hasPoller(connection, namespace, taskQueue, `${child.pid}@`)) return;
        } catch {
          // Temporal may be restarting; connect afresh next round.
          await connection?.close();
          connection = undefined;
        }
        await sleep(250, undefined, { signal });
      }
    } finally {
      await connection?.close();
    }
  }
}

async function hasPoller(connection: Connection, namespace: string, taskQueue: string, identityPrefix: string): Promise<boolean> {
  for (const taskQueueType of [TASK_QUEUE_TYPE_WORKFLOW, TASK_QUEUE_TYPE_ACTIVITY]) {
    const { pollers } = await connection.workflowService.describeTaskQueue({
      namespace,
      taskQueue: { name: taskQueue },
      taskQueueType,
    });
    if (pollers?.some((p) => p.identity?.startsWith(identityPrefix))) return true;
  }
  return false;
}

function assertRunning(child: ManagedProcess): void {
  if (child.exitInfo) {
    throw new Error(`${child.name} exited during start-up (${describeExit(child.exitInfo)}). Its output:\n${child.tail()}`);
  }
}

/** Host part of a URL for a bind address: wildcard binds are reached through loopback. */
function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Runs start-up steps side by side; the first failure aborts the others so we do not wait out
 * their timeouts, and it is the error reported.
 */
async function allOrAbort(steps: ((signal: AbortSignal) => Promise<unknown>)[], parent?: AbortSignal): Promise<void> {
  const controller = new AbortController();
  const signal = parent ? AbortSignal.any([parent, controller.signal]) : controller.signal;
  await Promise.all(
    steps.map((step) =>
      step(signal).catch((err: unknown) => {
        if (!controller.signal.aborted) controller.abort(err);
      }),
    ),
  );
  if (parent?.aborted) throw parent.reason;
  if (controller.signal.aborted) throw controller.signal.reason;
}
