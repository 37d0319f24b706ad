/**
 * A Trawl stack for one scenario, started the way the e2e setup starts one (scripts/stack.ts):
 * Temporal dev server on a temp data dir, a fresh Postgres database, worker(s) and the API, plus
 * an API key. `stop()` leaves nothing behind: processes, database and data dir.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { generateApiKey, hashApiKey, keyPrefix } from '../../api/auth/api-keys.js';
import { createDb } from '../../db/connect.js';
import { insertApiKey } from '../../db/repositories/api-keys.js';
import { findOrCreateTeam } from '../../db/repositories/teams.js';
import { findFreePort } from '../../lib/ports.js';
import { startStack, type Stack } from '../../scripts/stack.js';
import { dropDatabase, testDatabaseUrl } from '../../test/helpers/test-db.js';

const BENCH_ENV = {
  ALLOW_PRIVATE_NETWORK: 'true',
  LOG_LEVEL: 'warn',
};

export interface BenchStackOptions {
  /** @default 1 */
  workerCount?: number;
  /** Added to BENCH_ENV for the API and workers, e.g. NODE_OPTIONS for --cpu-prof. */
  env?: Readonly<Record<string, string>>;
  /** Run API and workers from dist/ (npm run build). @default false */
  compiled?: boolean;
  /** Receives every line the stack prints, as it prints it. */
  onLine?: (line: string) => void;
}

export interface BenchStack {
  readonly stack: Stack;
  readonly apiUrl: string;
  readonly apiKey: string;
  /** The stack's own database and the team the key belongs to, for scenarios that seed data. */
  readonly databaseUrl: string;
  readonly teamId: string;
  readonly temporal: Client;
  /**
   * The API process. The Stack does not expose it, so it is found among this process's children
   * by its entry file.
   */
  apiPid(): number;
  /** Stops everything, drops the database and removes the data dir. */
  stop(): Promise<void>;
  /** The last lines the stack and its children printed, for error messages. */
  tail(lines?: number): string;
}

export async function startBenchStack(options: BenchStackOptions = {}): Promise<BenchStack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'trawl-bench-'));
  const databaseUrl = testDatabaseUrl('trawl_bench');
  const lines: string[] = [];
  const log = (line: string) => {
    options.onLine?.(line);
    lines.push(line);
    if (lines.length > 2_000) lines.shift();
    if (process.env.BENCH_VERBOSE) console.log(line);
  };
  const cleanUp = async () => {
    await dropDatabase(databaseUrl).catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  };
  let stack: Stack;
  try {
    stack = await startStack({
      databaseUrl,
      temporal: { port: await findFreePort(), dataDir },
      apiPort: await findFreePort(),
      workerCount: options.workerCount ?? 1,
      env: { ...BENCH_ENV, ...options.env },
      compiled: options.compiled,
      log,
    });
  } catch (err) {
    await cleanUp();
    throw new Error(`the bench stack did not start:\n${lines.slice(-60).join('\n')}`, { cause: err });
  }

  const db = createDb(databaseUrl, { maxConnections: 1 });
  const team = await findOrCreateTeam(db, 'bench');
  const apiKey = generateApiKey();
  await insertApiKey(db, { teamId: team.id, keyHash: hashApiKey(apiKey), keyPrefix: keyPrefix(apiKey), scopes: null });
  await db.destroy();

  const connection = await Connection.connect({ address: stack.temporalAddress });
  return {
    stack,
    apiUrl: stack.apiUrl,
    apiKey,
    databaseUrl,
    teamId: team.id,
    temporal: new Client({ connection }),
    apiPid: () => {
      if (stack.apiPid === undefined) throw new Error('the API process is not running');
      return stack.apiPid;
    },
    tail: (count = 60) => lines.slice(-count).join('\n'),
    stop: async () => {
      await connection.close();
      await stack.stop();
      await cleanUp();
    },
  };
}
