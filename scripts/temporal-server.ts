/**
 * A Temporal dev server (`temporal server start-dev`) as a child process, persisting to SQLite so
 * workflows survive restarts of the server.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { describeExit, spawnManaged, type ExitInfo, type LogSink, type ManagedProcess } from './managed-process.js';
import { assertPortFree } from '../lib/ports.js';

/** Search attributes the API and workflows index jobs by. */
export const SEARCH_ATTRIBUTES = { TeamId: 'Keyword', JobKind: 'Keyword', ZeroDataRetention: 'Bool' } as const;

export type DynamicConfigValue = number | boolean | string;

export interface TemporalServerOptions {
  /** The `temporal` executable. */
  cliPath: string;
  /** Frontend gRPC port. */
  port: number;
  /** Web UI port. @default none: the server runs `--headless` */
  uiPort?: number;
  /** Holds `temporal.db`; the same directory on the next start brings back all state. */
  dataDir: string;
  /** @default '127.0.0.1' */
  ip?: string;
  /**
   * Extra `--dynamic-config-value KEY=VALUE` pairs. Values are JSON-encoded, so a string becomes a
   * JSON string (`'5000ms'` → `"5000ms"`); pass numbers as numbers.
   */
  dynamicConfig?: Readonly<Record<string, DynamicConfigValue>>;
  /** @default console.log */
  log?: LogSink;
  /** How long to wait for the frontend to answer. @default 60_000 */
  readyTimeoutMs?: number;
  /** How long `stop()` waits after SIGTERM before SIGKILL. @default 10_000 */
  stopGraceMs?: number;
  /** Aborts waiting for start-up; the server is then stopped. */
  signal?: AbortSignal;
}

export interface TemporalServer {
  /** `host:port` of the frontend, for TEMPORAL_ADDRESS. */
  address: string;
  uiUrl?: string;
  process: ChildProcess;
  /** Resolves when the server process has exited, for whatever reason. */
  exited: Promise<ExitInfo>;
  /** The server's last output lines. */
  tail(): string;
  /** SIGTERM, then SIGKILL after the grace period. */
  stop(): Promise<void>;
}

export function buildTemporalServerArgs(options: TemporalServerOptions): string[] {
  const args = ['server', 'start-dev', '--ip', options.ip ?? '127.0.0.1', '--port', String(options.port)];
  if (options.uiPort === undefined) args.push('--headless');
  else args.push('--ui-port', String(options.uiPort));
  args.push(
    '--db-filename', join(options.dataDir, 'temporal.db'),
    // What the SDK's own CI uses: fast, and a killed server loses nothing the OS already has.
    '--sqlite-pragma', 'journal_mode=WAL',
    '--sqlite-pragma', 'synchronous=OFF',
  );
  for (const [key, type] of Object.entries(SEARCH_ATTRIBUTES)) args.push('--search-attribute', `${key}=${type}`);
  const dynamicConfig = {
    'system.enableActivityEagerExecution': true,
    // The dev server has one history shard, and each shard reads its transfer and timer queues at
    // most 20 times a second by default: every workflow task then waits up to 50 ms to be
    // dispatched (an empty workflow took 50 ms end to end, one with an activity 100 ms; with
    // these, 15 and 25 ms). A multi-shard production cluster spreads the same limit over its shards.
    'history.transferProcessorMaxPollRPS': 10_000,
    'history.timerProcessorMaxPollRPS': 10_000,
    ...options.dynamicConfig,
  };
  for (const [key, value] of Object.entries(dynamicConfig)) {
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  }
  args.push('--log-level', 'warn');
  return args;
}

export async function startTemporalServer(options: TemporalServerOptions): Promise<TemporalServer> {
  const ip = options.ip ?? '127.0.0.1';
  const log = options.log ?? console.log;
  const address = `${ip}:${options.port}`;
  // Without this, a server already on the port would answer our readiness check while ours dies.
  await assertPortFree(
    ip,
    options.port,
    'Temporal',
    'Is another Temporal server running? Stop it, set TEMPORAL_ADDRESS to use it, or choose another TEMPORAL_PORT.',
  );
  if (options.uiPort !== undefined) {
    await assertPortFree(ip, options.uiPort, 'Temporal UI', 'Choose another TEMPORAL_UI_PORT.');
  }
  mkdirSync(options.dataDir, { recursive: true });

  for (let attempt = 1; ; attempt++) {
    const child = await spawnManaged({
      name: 'temporal',
      command: options.cliPath,
      args: buildTemporalServerArgs(options),
      log,
      // Its shutdown is a burst of warnings about connections it is itself closing.
      muteOnStop: true,
    });
    try {
      await waitForTemporal(address, child, options.readyTimeoutMs ?? 60_000, options.signal);
    } catch (err) {
      await child.stop(2_000);
      if (attempt < START_ATTEMPTS && lostPortRace(err, [options.port, options.uiPort])) {
        log('[temporal] a port the server picked for itself was taken before it could listen; starting it again');
        continue;
      }
      throw err;
    }
    return {
      address,
      uiUrl: options.uiPort === undefined ? undefined : `http://${ip}:${options.uiPort}`,
      process: child.process,
      exited: child.exited,
      tail: child.tail,
      stop: async () => {
        await child.stop(options.stopGraceMs ?? 10_000);
      },
    };
  }
}

/**
 * The CLI picks its HTTP API and metrics ports itself, by asking the OS for a free one and
 * listening on it later; another process starting at that moment (a parallel test, say) can take
 * it in between, and the server exits. A new start picks new ports. A clash on a port we chose is
 * not that race, and is reported as it is.
 */
const START_ATTEMPTS = 3;

export function lostPortRace(err: unknown, ownPorts: readonly (number | undefined)[]): boolean {
  const message = err instanceof Error ? err.message : String(err);
  const clash = /listen tcp [^\s]*:(\d+): bind: address already in use/.exec(message);
  return clash !== null && !ownPorts.includes(Number(clash[1]));
}

/** Ready means the `default` namespace answers, which is what workers and the API need. */
export async function waitForTemporal(
  address: string,
  child: ManagedProcess | undefined,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    signal?.throwIfAborted();
    if (child?.exitInfo) {
      throw new Error(`The Temporal server exited during start-up (${describeExit(child.exitInfo)}). Its output:\n${child.tail()}`);
    }
    let connection: Connection | undefined;
    try {
      connection = await Connection.connect({ address, connectTimeout: 1_000 });
      await connection.workflowService.describeNamespace({ namespace: 'default' });
      return;
    } catch (err) {
      lastError = err;
    } finally {
      await connection?.close();
    }
    await sleep(200, undefined, { signal });
  }
  const detail = lastError instanceof Error ? lastError.message : String(lastError);
  const output = child ? ` Its output:\n${child.tail()}` : '';
  throw new Error(`Temporal at ${address} did not become ready within ${Math.round(timeoutMs / 1000)} s (last error: ${detail}).${output}`);
}
