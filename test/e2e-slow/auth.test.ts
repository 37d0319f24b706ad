/**
 * Keys and teams through the admin CLI and the API: hashed keys, revocation, scopes, team
 * isolation, AUTH=none, and the official JS SDK against the running service.
 */
import Firecrawl from '@mendable/firecrawl-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../db/connect.js';
import { findFreePort } from '../../lib/ports.js';
import { startStack, type Stack } from '../../scripts/stack.js';
import { apiClient } from '../helpers/api-client.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { createKeyWithCli, runAdmin } from '../helpers/run-admin.js';
import { e2eContext } from '../e2e/context.js';
import { E2E_ENV } from '../e2e/global-setup.js';

const { apiUrl, databaseUrl, temporalAddress } = e2eContext();
let site: FixtureSite;

beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(async () => {
  await site.close();
});

describe('API keys from the admin CLI', () => {
  it('creates a key that works, stores only its hash, and stops working at once when revoked', async () => {
    const key = await createKeyWithCli(databaseUrl, 'cli-team');
    expect(key).toMatch(/^fc-[0-9a-f]{40}$/);
    const api = apiClient(apiUrl, key);
    expect((await api('/v2/scrape', { body: { url: `${site.url}/final` } })).status).toBe(200);

    const db = createDb(databaseUrl, { maxConnections: 1 });
    const stored = await db.selectFrom('api_keys').selectAll().execute();
    await db.destroy();
    expect(JSON.stringify(stored)).not.toContain(key);

    const listed = (await runAdmin(databaseUrl, ['keys', 'list', '--team', 'cli-team'])).stdout;
    expect(listed).toContain(key.slice(0, 11));
    expect(listed).toContain('active');

    await runAdmin(databaseUrl, ['keys', 'revoke', key.slice(0, 11)]);
    const after = await api('/v2/scrape', { body: { url: `${site.url}/final` } });
    expect(after.status).toBe(401);
    expect(after.body.error).toBe('Unauthorized: Invalid token');
  });

  it('answers 403 when a key lacks the endpoint scope', async () => {
    const key = await createKeyWithCli(databaseUrl, 'scoped-team', ['--scopes', 'crawl']);
    const res = await apiClient(apiUrl, key)('/v2/scrape', { body: { url: `${site.url}/final` } });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ success: false, code: 'FORBIDDEN' });
  });

  it("answers 404 for another team's job", async () => {
    const owner = apiClient(apiUrl, await createKeyWithCli(databaseUrl, 'owner-team'));
    const other = apiClient(apiUrl, await createKeyWithCli(databaseUrl, 'other-team'));
    const scraped = await owner('/v2/scrape', { body: { url: `${site.url}/final` } });
    const id = scraped.body.data.metadata.scrapeId;
    expect((await owner(`/v2/scrape/${id}`)).status).toBe(200);
    const stolen = await other(`/v2/scrape/${id}`);
    expect(stolen.status).toBe(404);
    expect(stolen.body.success).toBe(false);
  });
});

describe('the official JS SDK', () => {
  it('scrapes through @mendable/firecrawl-js unmodified', async () => {
    const key = await createKeyWithCli(databaseUrl, 'sdk-team');
    const firecrawl = new Firecrawl({ apiKey: key, apiUrl });
    const doc = await firecrawl.scrape(`${site.url}/article`, { formats: ['markdown', 'links'] });
    expect(doc.markdown).toContain('Durable Crawling');
    expect(doc.links).toContain(`${site.url}/docs`);
    expect(doc.metadata?.statusCode).toBe(200);
    await expect(firecrawl.scrape(`${site.url}/slow`, { timeout: 1500 })).rejects.toMatchObject({
      status: 408,
      code: 'SCRAPE_TIMEOUT',
    });
  });
});

describe('AUTH=none', () => {
  let open: Stack;
  beforeAll(async () => {
    // A second API on the same Temporal server, database and worker, with auth turned off.
    open = await startStack({
      databaseUrl,
      temporal: { address: temporalAddress },
      apiPort: await findFreePort(),
      workerCount: 0,
      env: { ...E2E_ENV, AUTH: 'none' },
      log: () => undefined,
    });
  });
  afterAll(async () => {
    await open?.stop();
  });

  it('accepts requests with no key, with an empty Bearer, and from the SDK without a key', async () => {
    const api = apiClient(open.apiUrl);
    expect((await api('/v2/scrape', { body: { url: `${site.url}/final` }, key: null })).status).toBe(200);
    expect(
      (await api('/v2/scrape', { body: { url: `${site.url}/final` }, key: null, headers: { authorization: 'Bearer ' } }))
        .status,
    ).toBe(200);
    const doc = await new Firecrawl({ apiUrl: open.apiUrl }).scrape(`${site.url}/final`);
    expect(doc.markdown).toContain('followed the redirects');
  });

  it('is off by default: the main API still refuses keyless requests', async () => {
    const res = await apiClient(apiUrl)('/v2/scrape', { body: { url: `${site.url}/final` }, key: null });
    expect(res.status).toBe(401);
  });
});
