/**
 * Runs the real dev server from the Temporal CLI that `npm run setup` provides: persistence across
 * a restart on the same SQLite file, and nothing left running afterwards.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../../../lib/ports.js';
import { findOrBuildTemporalCli } from '../../../scripts/temporal-cli.js';
import { lostPortRace, startTemporalServer, type TemporalServer } from '../../../scripts/temporal-server.js';

const TeamId = defineSearchAttributeKey('TeamId', SearchAttributeType.KEYWORD);

let cliPath: string;
let dataDir: string;

beforeAll(async () => {
  cliPath = await findOrBuildTemporalCli({ log: () => {} });
  dataDir = mkdtempSync(join(tmpdir(), 'trawl-temporal-test-'));
});

afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

/** Processes whose command line mentions `needle`, e.g. our private SQLite path. */
function processesMentioning(needle: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(needle);
      } catch {
        return false;
      }
    })
    .map(Number);
}

async function withClient<T>(address: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const connection = await Connection.connect({ address });
  try {
    return await fn(new Client({ connection }));
  } finally {
    await connection.close();
  }
}

describe('startTemporalServer', () => {
  it('keeps workflows and search attributes across a restart on the same SQLite file, and leaves no process', async () => {
    const port = await findFreePort();
    const options = { cliPath, port, dataDir, dynamicConfig: { 'limit.historyCount.suggestContinueAsNew': 20 }, log: () => {} };

    let server: TemporalServer = await startTemporalServer(options);
    expect(server.address).toBe(`127.0.0.1:${port}`);
    expect(server.uiUrl).toBeUndefined();
    const firstPid = server.process.pid!;
    // No worker polls this queue, so the workflow simply stays open.
    await withClient(server.address, (client) =>
      client.workflow.start('neverRuns', {
        taskQueue: 'nobody-polls-this',
        workflowId: 'persisted-across-restart',
        typedSearchAttributes: [{ key: TeamId, value: 'team-a' }],
      }),
    );
    await server.stop();
    expect(server.process.exitCode !== null || server.process.signalCode !== null).toBe(true);
    expect(() => process.kill(firstPid, 0)).toThrow();

    server = await startTemporalServer(options);
    try {
      const description = await withClient(server.address, (client) =>
        client.workflow.getHandle('persisted-across-restart').describe(),
      );
      expect(description.status.name).toBe('RUNNING');
      expect(description.typedSearchAttributes.get(TeamId)).toBe('team-a');
    } finally {
      await server.stop();
    }
    expect(processesMentioning(dataDir)).toEqual([]);
  });

  it('serves the Web UI when given a UI port', async () => {
    const [port, uiPort] = [await findFreePort(), await findFreePort()];
    const server = await startTemporalServer({ cliPath, port, uiPort, dataDir: join(dataDir, 'ui'), log: () => {} });
    try {
      expect(server.uiUrl).toBe(`http://127.0.0.1:${uiPort}`);
      expect((await fetch(server.uiUrl!)).status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it('refuses a port that is already taken instead of talking to whoever holds it', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      await expect(startTemporalServer({ cliPath, port, dataDir, log: () => {} })).rejects.toThrow(
        `Temporal: port ${port} on 127.0.0.1 is already in use`,
      );
    } finally {
      blocker.close();
    }
  });

  it('reports a server that dies during start-up, with its output', async () => {
    const port = await findFreePort();
    // `false` ignores its arguments and exits 1 at once, like a server that cannot start.
    await expect(startTemporalServer({ cliPath: '/bin/false', port, dataDir, log: () => {} })).rejects.toThrow(
      'The Temporal server exited during start-up (exit code 1)',
    );
  });
});

describe('a port the CLI picked for itself, taken before it listened', () => {
  /** What the CLI printed when a parallel test took its HTTP API port (seen on a clean clone). */
  const clash = (port: number) =>
    `failed listening for HTTP API on 127.0.0.1:${port}: listen tcp 127.0.0.1:${port}: bind: address already in use`;

  it('starts the server again, which then picks other ports', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-temporal-race-'));
    const marker = join(dir, 'lost-once');
    // The CLI, except that its first start loses the race.
    const wrapper = join(dir, 'temporal');
    writeFileSync(
      wrapper,
      `#!/bin/sh\nif [ ! -e '${marker}' ]; then touch '${marker}'; echo 'level=ERROR msg="${clash(39037)}"' >&2; exit 1; fi\nexec '${cliPath}' "$@"\n`,
      { mode: 0o755 },
    );
    const lines: string[] = [];
    const server = await startTemporalServer({ cliPath: wrapper, port: await findFreePort(), dataDir: join(dir, 'data'), log: (line) => lines.push(line) });
    try {
      await withClient(server.address, (client) => client.workflowService.getSystemInfo({}));
      expect(lines.join('\n')).toContain('starting it again');
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it('is told apart from a clash on a port we chose, which is not retried', () => {
    expect(lostPortRace(new Error(clash(39037)), [7233, undefined])).toBe(true);
    expect(lostPortRace(new Error(clash(7233)), [7233, undefined])).toBe(false);
    expect(lostPortRace(new Error(clash(8233)), [7233, 8233])).toBe(false);
    expect(lostPortRace(new Error('The Temporal server exited during start-up (exit code 1)'), [7233])).toBe(false);
  });
});
