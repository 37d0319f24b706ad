/**
 * The stack against stand-in api/worker/migrate entries (fixtures/fake-project) and a real Temporal
 * dev server and Postgres: start-up, the durability handles, and a shutdown that leaves nothing.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Connection } from '@temporalio/client';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { findFreePort } from '../../../lib/ports.js';
import { ensureDatabase, startStack, WORKER_NODE_FLAGS, type Stack } from '../../../scripts/stack.js';
import { findOrBuildTemporalCli } from '../../../scripts/temporal-cli.js';

const fakeProject = fileURLToPath(new URL('./fixtures/fake-project/', import.meta.url));
const serverUrl = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const databaseName = `trawl_stack_test_${process.pid}`;
const databaseUrl = Object.assign(new URL(serverUrl), { pathname: `/${databaseName}` }).toString();

let cliPath: string;
let dataDir: string;

beforeAll(async () => {
  cliPath = await findOrBuildTemporalCli({ log: () => {} });
  dataDir = mkdtempSync(join(tmpdir(), 'trawl-stack-test-'));
});

afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${databaseName}`);
  await admin.end();
});

/** Alive and not a zombie: a SIGKILLed orphan lingers as a zombie until init reaps it. */
function isRunning(pid: number): boolean {
  try {
    return parseProcStatState(readFileSync(`/proc/${pid}/stat`, 'utf8')) !== 'Z';
  } catch {
    return false;
  }
}

/** Signals are delivered asynchronously, so allow the kernel a moment. */
async function expectGone(pid: number): Promise<void> {
  await vi.waitFor(() => expect(isRunning(pid), `pid ${pid} still running`).toBe(false), { timeout: 2_000 });
}

function parseProcStatState(stat: string): string | undefined {
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
}

/** The pid the fake worker printed for its detached stand-in browser. */
function browserPid(lines: string[], worker: string): number {
  const line = lines.find((l) => l.startsWith(`[${worker}] fake worker: browser pid `));
  return Number(line?.split(' ').at(-1));
}

async function options(lines: string[], env: Record<string, string> = {}) {
  return {
    databaseUrl,
    temporal: { cliPath, port: await findFreePort(), dataDir },
    apiPort: await findFreePort(),
    env,
    log: (line: string) => lines.push(line),
    projectRoot: fakeProject,
    readyTimeoutMs: 30_000,
    stopGraceMs: 5_000,
  };
}

describe('ensureDatabase', () => {
  it('creates a missing database once', async () => {
    const url = Object.assign(new URL(serverUrl), { pathname: `/${databaseName}_ensure` }).toString();
    try {
      expect(await ensureDatabase(url)).toEqual({ created: true });
      expect(await ensureDatabase(url)).toEqual({ created: false });
    } finally {
      const admin = new pg.Client({ connectionString: serverUrl });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${databaseName}_ensure`);
      await admin.end();
    }
  });

  it('names the server it cannot reach', async () => {
    const port = await findFreePort();
    await expect(ensureDatabase(`postgres://u:secret@127.0.0.1:${port}/x`)).rejects.toThrow(
      `Cannot connect to PostgreSQL at postgres://u:***@127.0.0.1:${port}/x`,
    );
  });
});

describe('startStack', () => {
  it('starts everything, survives worker kills and restarts, and stops without leftovers', async () => {
    const lines: string[] = [];
    const stack: Stack = await startStack(await options(lines, { FAKE_GREETING: 'hello' }));
    const pids: number[] = [];
    try {
      const env = (await (await fetch(`${stack.apiUrl}/env`)).json()) as Record<string, string>;
      expect(env).toEqual({ greeting: 'hello', databaseUrl, temporalAddress: stack.temporalAddress });

      const migrated = new pg.Client({ connectionString: databaseUrl });
      await migrated.connect();
      await migrated.query('SELECT * FROM fake_migrated');
      await migrated.end();

      expect(stack.workers.map((w) => w.name)).toEqual(['worker-1']);
      const first = stack.workers[0]!;
      // The worker runs with its node flags (WORKER_NODE_FLAGS).
      const argv = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      expect(argv(first.pid)).toEqual(expect.arrayContaining([...WORKER_NODE_FLAGS, 'worker/main.ts']));
      const firstBrowser = browserPid(lines, 'worker-1');
      expect(isRunning(firstBrowser)).toBe(true);
      expect(await first.kill('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
      await expectGone(firstBrowser);
      expect(stack.workers).toEqual([]);

      // A worker started with its own settings on top of the stack's.
      const second = await stack.startWorker({ FAKE_GREETING: 'worker only' });
      expect(second.name).toBe('worker-2');
      expect(readFileSync(`/proc/${second.pid}/environ`, 'utf8').split('\0')).toEqual(
        expect.arrayContaining(['FAKE_GREETING=worker only', `TEMPORAL_ADDRESS=${stack.temporalAddress}`]),
      );
      expect(stack.workers).toEqual([second]);
      pids.push(second.pid, browserPid(lines, 'worker-2'));

      await stack.restartApi();
      expect((await fetch(`${stack.apiUrl}/health`)).status).toBe(200);

      await stack.restartTemporal();
      const connection = await Connection.connect({ address: stack.temporalAddress });
      await connection.workflowService.describeNamespace({ namespace: 'default' });
      await connection.close();
      expect(lines.some((l) => l.includes('exited unexpectedly'))).toBe(false);
    } finally {
      await stack.stop();
    }
    for (const pid of pids) await expectGone(pid);
    await expect(fetch(`${stack.apiUrl}/health`)).rejects.toThrow();
  });

  it('fails with the output of a child that dies during start-up, and cleans up', async () => {
    const lines: string[] = [];
    const opts = await options(lines, { FAKE_API_CRASH: '1' });
    await expect(startStack(opts)).rejects.toThrow(/api exited during start-up \(exit code 3\)\. Its output:\nfake api: crashing on purpose/);
    const workerBrowser = browserPid(lines, 'worker-1');
    if (workerBrowser) await expectGone(workerBrowser);
    await expect(Connection.connect({ address: `127.0.0.1:${opts.temporal.port}`, connectTimeout: 500 })).rejects.toThrow();
  });
});
