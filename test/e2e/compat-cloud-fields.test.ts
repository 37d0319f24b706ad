/**
 * Scrape, map and agent fields of Firecrawl's cloud products (contracts/cloud-only.ts): accepted
 * from the official SDK, the page or response says what was not done, and a bad value is a 400
 * naming the field.
 */
import Firecrawl from '@mendable/firecrawl-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/api-client.js';
import { startPageServer, type PageServer } from '../helpers/page-server.js';
import { waitForJobEnd } from '../helpers/wait-for-job.js';
import { e2eContext } from './context.js';

const { apiUrl, apiKey } = e2eContext();
const api = apiClient(apiUrl, apiKey);
const firecrawl = new Firecrawl({ apiKey, apiUrl });
let site: PageServer;

beforeAll(async () => {
  site = await startPageServer({ '/a': '<h1>Cloud fields</h1><p>A page fetched live.</p>', '/b': '<p>Another page.</p>' });
});

afterAll(async () => {
  await site?.close();
});

describe('scrape options of cloud products', () => {
  it('fetches live for useMock, matches no tools for domainTools, and says both (official SDK)', async () => {
    const doc = await firecrawl.scrape(`${site.origin}/a`, { formats: ['markdown'], useMock: 'some-recording', domainTools: true, toolDetail: 'full', maxAge: 0 });
    expect(doc.markdown).toContain('A page fetched live.');
    expect(doc).not.toHaveProperty('tools');
    expect(doc.warning).toMatch(/useMock .* fetched live/);
    expect(doc.warning).toMatch(/Alexandria tool catalogue/);
  });

  it('keeps auditMetadata with the job and says it is exported nowhere; toolDetail alone asks nothing', async () => {
    const doc = await firecrawl.scrape(`${site.origin}/a`, { formats: ['markdown'], auditMetadata: { username: 'alice' }, maxAge: 0 });
    expect(doc.warning).toMatch(/auditMetadata .* exported nowhere/);
    const plain = await firecrawl.scrape(`${site.origin}/a`, { formats: ['markdown'], toolDetail: 'compact', domainTools: false, maxAge: 0 });
    expect(plain.warning ?? '').not.toMatch(/Alexandria|auditMetadata|useMock/);
  });

  it('warns on every page of a batch and a crawl', async () => {
    const batch = await api('/v2/batch/scrape', { body: { urls: [`${site.origin}/a`, `${site.origin}/b`], useMock: 'x' } });
    expect(batch.status).toBe(200);
    const done = await waitForJobEnd(api, 'batch/scrape', batch.body.id);
    expect(done.data.map((d: { warning?: string }) => d.warning)).toEqual([expect.stringMatching(/useMock/), expect.stringMatching(/useMock/)]);
    const crawl = await api('/v2/crawl', { body: { url: `${site.origin}/a`, limit: 1, scrapeOptions: { domainTools: true } } });
    expect(crawl.status).toBe(200);
    const crawled = await waitForJobEnd(api, 'crawl', crawl.body.id);
    expect(crawled.data[0].warning).toMatch(/Alexandria/);
  });

  it.each([
    ['useMock', { useMock: 7 }],
    ['domainTools', { domainTools: 'yes' }],
    ['toolDetail', { toolDetail: 'all' }],
    ['auditMetadata', { auditMetadata: { user: 'alice' } }],
    ['auditMetadata', { auditMetadata: { username: 'x'.repeat(1025) } }],
  ])('refuses a bad %s naming it', async (field, extra) => {
    const res = await api('/v2/scrape', { body: { url: `${site.origin}/a`, ...extra } });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(field);
  });
});

describe('map and agent', () => {
  it('maps with auditMetadata and says it is exported nowhere (official SDK)', async () => {
    const map = await firecrawl.map(`${site.origin}/`, { auditMetadata: { username: 'alice' } });
    expect(map.links.length).toBeGreaterThan(0);
    const raw = await api('/v2/map', { body: { url: `${site.origin}/`, auditMetadata: { username: 'alice' } } });
    expect(raw.body.warning).toMatch(/auditMetadata/);
    const bad = await api('/v2/map', { body: { url: `${site.origin}/`, auditMetadata: 'alice' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('auditMetadata');
  });

  it('validates the agent fields before anything else: a chat run with a schema, a bad threadId or mode, and a bad auditMetadata are 400s naming them', async () => {
    for (const [body, named] of [
      [{ prompt: 'find it', mode: 'chat', schema: { type: 'object' } }, 'schema'],
      [{ prompt: 'find it', mode: 'talk' }, 'mode'],
      [{ prompt: 'find it', threadId: 'not-a-uuid' }, 'threadId'],
    ] as const) {
      const res = await api('/v2/agent', { body });
      expect(res.status, named).toBe(400);
      expect(res.body.error, named).toContain(named);
    }
    const bad = await api('/v2/agent', { body: { prompt: 'find it', auditMetadata: { username: 1 } } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('auditMetadata');
    // Accepted by the schema: this stack has no model, which is the next check.
    const accepted = await api('/v2/agent', { body: { prompt: 'find it', mode: 'extract', auditMetadata: { username: 'alice' } } });
    expect(accepted.body.code).toBe('LLM_NOT_CONFIGURED');
  });
});
