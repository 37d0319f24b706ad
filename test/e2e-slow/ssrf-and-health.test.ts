/**
 * The production defaults that the shared e2e stack turns off: SSRF protection (checked on a
 * second API + worker pair with ALLOW_PRIVATE_NETWORK unset, on its own task queue), and /health
 * reporting exactly what is down.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnManaged, type ManagedProcess } from '../../scripts/managed-process.js';
import { projectRoot } from '../../scripts/paths.js';
import { findFreePort } from '../../lib/ports.js';
import { startStack, type Stack } from '../../scripts/stack.js';
import { apiClient } from '../helpers/api-client.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { createKeyWithCli } from '../helpers/run-admin.js';
import { e2eContext } from '../e2e/context.js';

const { databaseUrl, temporalAddress } = e2eContext();
let site: FixtureSite;

beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(async () => {
  await site.close();
});

describe('SSRF protection (the default)', () => {
  let strict: Stack;
  let api: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    strict = await startStack({
      databaseUrl,
      temporal: { address: temporalAddress },
      apiPort: await findFreePort(),
      env: { LOG_LEVEL: 'warn', TEMPORAL_TASK_QUEUE: 'trawl-strict' },
      log: () => undefined,
    });
    api = apiClient(strict.apiUrl, await createKeyWithCli(databaseUrl, 'strict-team'));
  });
  afterAll(async () => {
    await strict?.stop();
  });

  it.each([
    ['a loopback IP', () => `${site.url}/final`],
    ['localhost', () => `${site.url.replace('127.0.0.1', 'localhost')}/final`],
    ['the cloud metadata address', () => 'http://169.254.169.254/latest/meta-data/'],
    ['a private range', () => 'http://10.0.0.1/'],
    ['loopback in decimal', () => `http://2130706433:${new URL(site.url).port}/final`],
    ['loopback in octal', () => `http://0177.0.0.1:${new URL(site.url).port}/final`],
    ['loopback in hex', () => `http://0x7f.0x0.0x0.0x1:${new URL(site.url).port}/final`],
    ['loopback shortened (127.1)', () => `http://127.1:${new URL(site.url).port}/final`],
    ['0.0.0.0', () => `http://0.0.0.0:${new URL(site.url).port}/final`],
    ['IPv4-mapped IPv6 loopback', () => `http://[::ffff:127.0.0.1]:${new URL(site.url).port}/final`],
    ['IPv4-compatible IPv6 loopback', () => `http://[::7f00:1]:${new URL(site.url).port}/final`],
    ['the IPv6 unspecified address', () => `http://[::]:${new URL(site.url).port}/final`],
    ['IPv6 loopback', () => `http://[::1]:${new URL(site.url).port}/final`],
  ])('refuses %s with 403 SSRF_BLOCKED', async (_what, url) => {
    const res = await api('/v2/scrape', { body: { url: url(), timeout: 5000 } });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ success: false, code: 'SSRF_BLOCKED' });
  });

  it.each([
    ['a crawl', '/v2/crawl', {}],
    ['a v1 crawl', '/v1/crawl', {}],
    ['a map', '/v2/map', {}],
  ])('refuses %s of a blocked start URL with 403 SSRF_BLOCKED, starting nothing', async (_what, path, extra) => {
    const res = await api(path, { body: { url: `${site.url}/`, ...extra } });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ success: false, code: 'SSRF_BLOCKED' });
    const active = await api('/v2/crawl/active');
    expect(active.body.crawls).toEqual([]);
  });

  it('refuses a webhook to a literal private or metadata address at submission, on every route that takes one', async () => {
    const port = new URL(site.url).port;
    const targets = [`http://127.0.0.1:${port}/hook`, `http://2130706433:${port}/hook`, 'http://169.254.169.254/latest', `http://[::1]:${port}/hook`];
    const bodies: [string, (hook: unknown) => Record<string, unknown>][] = [
      ['/v2/crawl', (webhook) => ({ url: 'https://example.com', webhook })],
      ['/v2/batch/scrape', (webhook) => ({ urls: ['https://example.com'], webhook })],
      ['/v1/crawl', (webhook) => ({ url: 'https://example.com', webhook })],
      ['/v2/extract', (webhook) => ({ urls: ['https://example.com'], prompt: 'x', webhook })],
      ['/v2/agent', (webhook) => ({ prompt: 'x', webhook })],
      ['/v2/monitor', (webhook) => ({ name: 'm', schedule: { text: 'daily' }, targets: [{ type: 'scrape', urls: ['https://example.com'] }], webhook })],
    ];
    for (const [path, body] of bodies) {
      for (const url of targets) {
        for (const hook of [url, { url }]) {
          const res = await api(path, { body: body(hook) });
          expect(res.status, `${path} ${JSON.stringify(hook)}`).toBe(400);
          expect(res.body).toMatchObject({ success: false, code: 'WEBHOOK_TARGET_BLOCKED' });
        }
      }
    }
  });

  it("shows a monitor check's refused webhook deliveries in the check's status", async () => {
    const hook = `${site.url.replace('127.0.0.1', 'localhost')}/monitor-hook`;
    const created = await api('/v2/monitor', {
      body: { name: 'hooked', schedule: { text: 'daily' }, targets: [{ type: 'scrape', urls: [`${site.url}/final`] }], webhook: { url: hook, events: ['monitor.check.completed'] } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const run = await api(`/v2/monitor/${created.body.data.id}/run`, { method: 'POST' });
    let check: { status: string; webhookFailures?: { code: string; final: boolean }[] } | undefined;
    for (let i = 0; i < 300; i++) {
      check = (await api(`/v2/monitor/${created.body.data.id}/checks/${run.body.data.id}`)).body.data;
      if (check?.webhookFailures?.some((w) => w.final)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(check!.webhookFailures).toContainEqual(expect.objectContaining({ code: 'WEBHOOK_TARGET_BLOCKED', final: true }));
    expect(site.requests.filter((r) => r.includes('/monitor-hook'))).toEqual([]);
  });

  it('refuses the pages of a batch, listing them in /errors, and its webhook to a private target', async () => {
    // A name, so the submission check (literal addresses only) lets it by: delivery refuses it.
    const hook = `${site.url.replace('127.0.0.1', 'localhost')}/hook`;
    const started = await api('/v2/batch/scrape', {
      body: { urls: [`${site.url}/final`, 'http://[::ffff:7f00:1]/'], webhook: { url: hook, events: ['completed'] } },
    });
    expect(started.status).toBe(200);
    let errors: { errors: { code: string }[]; webhookFailures: { code: string; final: boolean }[] } | undefined;
    for (let i = 0; i < 200; i++) {
      errors = (await api(`/v2/batch/scrape/${started.body.id}/errors`)).body;
      if (errors!.webhookFailures.some((w) => w.final)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(errors!.errors.map((e) => e.code)).toEqual(['SSRF_BLOCKED', 'SSRF_BLOCKED']);
    expect(errors!.webhookFailures).toContainEqual(expect.objectContaining({ code: 'WEBHOOK_TARGET_BLOCKED', final: true }));
    expect(site.requests.filter((r) => r.includes('/hook'))).toEqual([]);
  });

  it('refuses in the browser engine too', async () => {
    const res = await api('/v2/scrape', { body: { url: `${site.url}/final`, formats: ['screenshot'], timeout: 10_000 } });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('SSRF_BLOCKED');
  });
});

const API_START_MS = 90_000;

describe('/health', { timeout: API_START_MS + 30_000 }, () => {
  let lonely: ManagedProcess | undefined;
  afterAll(async () => {
    await lonely?.stop(5000);
  });

  async function healthOf(env: Record<string, string>) {
    const port = await findFreePort();
    lonely = await spawnManaged({
      name: 'api-health',
      command: process.execPath,
      args: ['--import', 'tsx', 'api/server.ts'],
      cwd: projectRoot,
      env: { ...process.env, LOG_LEVEL: 'warn', PORT: String(port), ...env },
      log: () => undefined,
    });
    const get = apiClient(`http://127.0.0.1:${port}`);
    // Starting from sources (tsx) takes a few seconds, and far longer on a loaded machine.
    const giveUpAt = Date.now() + API_START_MS;
    while (Date.now() < giveUpAt) {
      const res = await get('/health').catch(() => undefined);
      if (res) {
        await lonely.stop(5000);
        lonely = undefined;
        return res;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`API never answered:\n${lonely.tail()}`);
  }

  it('answers 503 naming Temporal and the workers when Temporal is unreachable', async () => {
    const res = await healthOf({ DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: `127.0.0.1:${await findFreePort()}` });
    expect(res.status).toBe(503);
    expect(res.body.success).toBe(false);
    expect(res.body.error).toMatch(/temporal/);
    expect(res.body.checks.database.ok).toBe(true);
    expect(res.body.checks.temporal.ok).toBe(false);
  });

  it('answers 503 naming the database when Postgres is unreachable', async () => {
    const res = await healthOf({
      DATABASE_URL: `postgres://postgres@127.0.0.1:${await findFreePort()}/nothing`,
      TEMPORAL_ADDRESS: temporalAddress,
    });
    expect(res.status).toBe(503);
    expect(res.body.error).toMatch(/database/);
    expect(res.body.checks.temporal.ok).toBe(true);
  });

  it('answers 503 naming the workers when none polls the task queue', async () => {
    const res = await healthOf({
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_TASK_QUEUE: 'nobody-polls-this',
    });
    expect(res.status).toBe(503);
    expect(res.body.error).toMatch(/workers/);
    expect(res.body.checks.workers.ok).toBe(false);
  });
});
