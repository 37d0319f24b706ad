/**
 * Faults that must cost no data and produce no 5xx for a client: Postgres restarted under a
 * running crawl (on a Postgres of the test's own), and Temporal unreachable when a job is asked
 * for (a clear 503, or the seed's 500 for agent runs, and no job row left running).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey, keyPrefix } from '../../api/auth/api-keys.js';
import { createDb, type Db } from '../../db/connect.js';
import { insertApiKey } from '../../db/repositories/api-keys.js';
import { findOrCreateTeam } from '../../db/repositories/teams.js';
import { spawnManaged, type ManagedProcess } from '../../scripts/managed-process.js';
import { projectRoot } from '../../scripts/paths.js';
import { findFreePort } from '../../lib/ports.js';
import { startStack, type Stack } from '../../scripts/stack.js';
import { apiClient } from '../helpers/api-client.js';
import { startBigSite } from '../helpers/big-site.js';
import { crawlChecks } from '../helpers/crawl-checks.js';
import { startPrivatePostgres, type PrivatePostgres } from '../helpers/private-postgres.js';
import { e2eContext } from '../e2e/context.js';

const { databaseUrl: sharedDatabaseUrl, temporalAddress } = e2eContext();

async function keyFor(db: Db, team: string): Promise<{ key: string; teamId: string }> {
  const row = await findOrCreateTeam(db, team);
  const key = generateApiKey();
  await insertApiKey(db, { teamId: row.id, keyHash: hashApiKey(key), keyPrefix: keyPrefix(key), scopes: null });
  return { key, teamId: row.id };
}

describe('Postgres restarted mid-crawl', () => {
  let postgres: PrivatePostgres;
  let stack: Stack;
  let db: Db;

  beforeAll(async () => {
    postgres = await startPrivatePostgres();
    stack = await startStack({
      databaseUrl: postgres.url,
      temporal: { address: temporalAddress },
      apiPort: await findFreePort(),
      env: { LOG_LEVEL: 'warn', TEMPORAL_TASK_QUEUE: 'trawl-pg-restart', ALLOW_PRIVATE_NETWORK: 'true', CRAWL_PAGES_PER_RUN: '100' },
      log: () => undefined,
    });
    db = createDb(postgres.url, { maxConnections: 2 });
  }, 300_000);

  afterAll(async () => {
    await stack?.stop();
    await db?.destroy();
    await postgres?.stop();
  });

  it('finishes the crawl with every page stored once', async () => {
    const { key } = await keyFor(db, 'pg-restart');
    const api = apiClient(stack.apiUrl, key);
    const checks = crawlChecks(db, api);
    const site = await startBigSite(300, { delayMs: 20 });
    try {
      const res = await api('/v2/crawl', { body: { url: site.url, limit: site.pages, sitemap: 'skip', crawlEntireDomain: true, maxConcurrency: 8 } });
      expect(res.status).toBe(200);
      await checks.waitForPages(res.body.id, 40);
      await postgres.restart();
      await checks.expectEveryPageOnce(res.body.id, site.pages);
    } finally {
      await site.close();
    }
  });
});

describe('Temporal unreachable when a job is asked for', () => {
  let api: ManagedProcess | undefined;
  let db: Db;

  beforeAll(() => {
    db = createDb(sharedDatabaseUrl, { maxConnections: 2 });
  });
  afterAll(async () => {
    await api?.stop(5000);
    await db?.destroy();
  });

  it('answers 503 (agent runs: the seed’s 500) and leaves no job running', async () => {
    const { key, teamId } = await keyFor(db, 'no-temporal');
    const port = await findFreePort();
    api = await spawnManaged({
      name: 'api-no-temporal',
      command: process.execPath,
      args: ['--import', 'tsx', 'api/server.ts'],
      cwd: projectRoot,
      env: {
        ...process.env,
        LOG_LEVEL: 'warn',
        PORT: String(port),
        DATABASE_URL: sharedDatabaseUrl,
        TEMPORAL_ADDRESS: `127.0.0.1:${await findFreePort()}`,
        ALLOW_PRIVATE_NETWORK: 'true',
        OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
        OPENAI_API_KEY: 'sk-none',
      },
      log: () => undefined,
    });
    const call = apiClient(`http://127.0.0.1:${port}`, key);
    for (let i = 0; i < 100 && !(await call('/health').catch(() => undefined)); i++) await new Promise((r) => setTimeout(r, 100));

    for (const [path, body] of [
      ['/v2/crawl', { url: 'http://127.0.0.1:9/' }],
      ['/v2/batch/scrape', { urls: ['http://127.0.0.1:9/'] }],
      ['/v2/scrape', { url: 'http://127.0.0.1:9/' }],
    ] as const) {
      const res = await call(path, { body });
      expect(res.status, path).toBe(503);
      expect(res.body).toMatchObject({ success: false, code: 'SERVICE_UNAVAILABLE' });
    }
    const agent = await call('/v2/agent', { body: { prompt: 'x' } });
    expect(agent).toMatchObject({ status: 500, body: { success: false, error: 'Failed to passthrough agent request.' } });

    const jobs = await db.selectFrom('jobs').select(['kind', 'status']).where('team_id', '=', teamId).execute();
    expect(jobs.length).toBe(4);
    expect(jobs.filter((j) => j.status === 'scraping')).toEqual([]);
  });
});
