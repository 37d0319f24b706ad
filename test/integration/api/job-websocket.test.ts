import { WebSocket as WhatwgWebSocket } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { LOCAL_TEAM_NAME } from '../../../api/middleware/auth.js';
import { findOrCreateTeam } from '../../../db/repositories/teams.js';
import {
  insertCompletedDocuments,
  insertDocumentRow,
  insertJobRow,
  insertPages,
  setJobRowStatus,
  startJobReadFixture,
  type JobReadFixture,
} from './job-read-fixture.js';

let fx: JobReadFixture;

beforeAll(async () => {
  fx = await startJobReadFixture();
});

afterAll(async () => {
  await fx?.close();
});

interface Watch {
  ws: WebSocket;
  messages: any[];
  closed: Promise<{ code: number; reason: string }>;
}

function watch(path: string, protocol?: string, headers?: Record<string, string>): Watch {
  const ws = new WebSocket(`${fx.wsUrl}${path}`, protocol === undefined ? [] : [protocol], { headers });
  const messages: any[] = [];
  ws.on('message', (data) => messages.push(JSON.parse(data.toString())));
  ws.on('error', () => undefined);
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() }));
  });
  return { ws, messages, closed };
}

function sourceUrls(docs: any[]): string[] {
  return docs.map((d) => d.metadata.sourceURL);
}

describe('job websocket', () => {
  it('echoes the key subprotocol, catches up, streams new documents once each, and closes done', async () => {
    const jobId = await insertJobRow(fx.db, { teamId: fx.team.teamId });
    await insertPages(fx.db, jobId, [{ status: 'completed' }, { status: 'completed' }, { status: 'queued' }]);
    await insertCompletedDocuments(fx.db, { jobId, teamId: fx.team.teamId }, 2);

    const w = watch(`/v2/crawl/${jobId}`, fx.team.key);
    await new Promise((resolve) => w.ws.once('open', resolve));
    expect(w.ws.protocol).toBe(fx.team.key);

    await vi.waitFor(() => expect(w.messages).toHaveLength(1));
    expect(w.messages[0]).toEqual({
      type: 'catchup',
      data: {
        success: true,
        status: 'scraping',
        completed: 2,
        total: 3,
        creditsUsed: 2,
        expiresAt: expect.any(String),
        data: [expect.any(Object), expect.any(Object)],
      },
    });
    expect(sourceUrls(w.messages[0].data.data)).toEqual(['https://example.com/p/0', 'https://example.com/p/1']);

    for (const i of [2, 3, 4]) {
      await insertDocumentRow(fx.db, { jobId, teamId: fx.team.teamId, url: `https://example.com/p/${i}` });
    }
    await vi.waitFor(() => expect(w.messages).toHaveLength(4), { timeout: 5_000 });
    expect(w.messages.slice(1).map((m) => m.type)).toEqual(['document', 'document', 'document']);
    expect(sourceUrls(w.messages.slice(1).map((m) => m.data))).toEqual([
      'https://example.com/p/2',
      'https://example.com/p/3',
      'https://example.com/p/4',
    ]);

    // Written just before the job ends: still delivered, before the close.
    await insertDocumentRow(fx.db, { jobId, teamId: fx.team.teamId, url: 'https://example.com/p/5' });
    await setJobRowStatus(fx.db, jobId, 'completed');
    expect(await w.closed).toEqual({ code: 1000, reason: '{"type":"done"}' });
    const delivered = [...w.messages[0].data.data, ...w.messages.slice(1).map((m) => m.data)];
    expect(sourceUrls(delivered)).toEqual(Array.from({ length: 6 }, (_, i) => `https://example.com/p/${i}`));
  });

  it('works with a WHATWG WebSocket, which insists on the echoed subprotocol', async () => {
    const jobId = await insertJobRow(fx.db, { teamId: fx.team.teamId, status: 'completed' });
    await insertCompletedDocuments(fx.db, { jobId, teamId: fx.team.teamId }, 1);
    const ws = new WhatwgWebSocket(`${fx.wsUrl}/v2/crawl/${jobId}`, fx.team.key);
    const messages: any[] = [];
    ws.addEventListener('message', (e) => messages.push(JSON.parse(String(e.data))));
    const errored = vi.fn();
    ws.addEventListener('error', errored);
    const closed = await new Promise<{ code: number; reason: string }>((resolve) =>
      ws.addEventListener('close', (e) => resolve({ code: e.code, reason: e.reason })),
    );
    expect(errored).not.toHaveBeenCalled();
    expect(closed).toEqual({ code: 1000, reason: '{"type":"done"}' });
    expect(messages.map((m) => m.type)).toEqual(['catchup']);
    expect(messages[0].data).toMatchObject({ status: 'completed', completed: 0, total: 0, creditsUsed: 1 });
    expect(messages[0].data.data).toHaveLength(1);
  });

  it('sends a large catchup as one message, in order, and closes at once for a finished job', async () => {
    const jobId = await insertJobRow(fx.db, { teamId: fx.team.teamId, status: 'completed' });
    await insertCompletedDocuments(fx.db, { jobId, teamId: fx.team.teamId }, 250);
    const w = watch(`/v2/crawl/${jobId}`, fx.team.key);
    expect(await w.closed).toEqual({ code: 1000, reason: '{"type":"done"}' });
    expect(w.messages).toHaveLength(1);
    expect(sourceUrls(w.messages[0].data.data)).toEqual(
      Array.from({ length: 250 }, (_, i) => `https://example.com/p/${i}`),
    );
  });

  it('serves batch scrapes on /v2/batch/scrape/:id and /v1/crawl/:id, and v1 crawls on /v1/crawl/:id', async () => {
    const batch = await insertJobRow(fx.db, { teamId: fx.team.teamId, kind: 'batch_scrape', status: 'failed' });
    const crawl = await insertJobRow(fx.db, { teamId: fx.team.teamId, status: 'cancelled' });
    // The v1 SDK's batchScrapeUrlsAndWatch watches a batch on the crawl path.
    for (const path of [`/v2/batch/scrape/${batch}`, `/v1/crawl/${batch}`, `/v1/crawl/${crawl}`]) {
      const w = watch(path, fx.team.key);
      expect(await w.closed, path).toEqual({ code: 1000, reason: '{"type":"done"}' });
      expect(w.messages[0].type, path).toBe('catchup');
    }
  });

  it('accepts the key in an Authorization header', async () => {
    const jobId = await insertJobRow(fx.db, { teamId: fx.team.teamId, status: 'completed' });
    const w = watch(`/v2/crawl/${jobId}`, undefined, { authorization: `Bearer ${fx.team.key}` });
    expect((await w.closed).code).toBe(1000);
  });

  it('closes 3000 for a bad, missing or out-of-scope key', async () => {
    const jobId = await insertJobRow(fx.db, { teamId: fx.team.teamId });
    for (const key of ['fc-not-a-real-key', undefined]) {
      const w = watch(`/v2/crawl/${jobId}`, key);
      expect(await w.closed).toEqual({ code: 3000, reason: '{"type":"error","error":"Unauthorized"}' });
      expect(w.messages).toEqual([]);
    }
    const scoped = watch(`/v2/crawl/${jobId}`, fx.scrapeOnlyKey);
    expect(await scoped.closed).toEqual({ code: 3000, reason: '{"type":"error","error":"Forbidden"}' });
  });

  it("closes 1008 for another team's job, an unknown or malformed id, and a job of the other kind", async () => {
    const theirs = await insertJobRow(fx.db, { teamId: fx.otherTeam.teamId });
    const crawl = await insertJobRow(fx.db, { teamId: fx.team.teamId });
    const batch = await insertJobRow(fx.db, { teamId: fx.team.teamId, kind: 'batch_scrape' });
    for (const path of [
      `/v2/crawl/${theirs}`,
      '/v2/crawl/00000000-0000-4000-8000-000000000000',
      '/v2/crawl/not-a-uuid',
      `/v2/batch/scrape/${crawl}`,
      `/v2/crawl/${batch}`,
    ]) {
      const w = watch(path, fx.team.key);
      expect(await w.closed, path).toEqual({ code: 1008, reason: '{"type":"error","error":"Job not found"}' });
      expect(w.messages, path).toEqual([]);
    }
  });

  it('stops polling and its heartbeat when a client drops the connection', async () => {
    const setIntervalSpy = vi.spyOn(globalThis, 'setInterval');
    const clearIntervalSpy = vi.spyOn(globalThis, 'clearInterval');
    const setTimeoutSpy = vi.spyOn(globalThis, 'setTimeout');
    const pollsScheduled = () => setTimeoutSpy.mock.calls.filter((call) => call[1] === 500).length;
    try {
      const jobId = await insertJobRow(fx.db, { teamId: fx.team.teamId });
      const w = watch(`/v2/crawl/${jobId}`, fx.team.key);
      await vi.waitFor(() => expect(w.messages).toHaveLength(1));
      await vi.waitFor(() => expect(pollsScheduled()).toBeGreaterThan(2), { timeout: 5_000 });
      const heartbeats = setIntervalSpy.mock.calls.flatMap((call, i) =>
        call[1] === 30_000 ? [setIntervalSpy.mock.results[i]?.value] : [],
      );
      expect(heartbeats).toHaveLength(1);

      w.ws.terminate();
      await w.closed;
      await vi.waitFor(() => expect(clearIntervalSpy).toHaveBeenCalledWith(heartbeats[0]));
      const pollsAtClose = pollsScheduled();
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(pollsScheduled()).toBeLessThanOrEqual(pollsAtClose + 1);
      const settled = pollsScheduled();
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(pollsScheduled()).toBe(settled);
    } finally {
      vi.restoreAllMocks();
    }
  });

  it('refuses upgrades on other paths with 404', async () => {
    const ws = new WebSocket(`${fx.wsUrl}/v2/scrape/whatever`, [fx.team.key]);
    const status = await new Promise<number | undefined>((resolve) => {
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode));
      ws.on('error', () => resolve(undefined));
    });
    expect(status).toBe(404);
  });
});

describe('AUTH=none', () => {
  it('accepts any subprotocol and serves the local team', async () => {
    const own = await startJobReadFixture({ auth: 'none' });
    try {
      const local = await findOrCreateTeam(own.db, LOCAL_TEAM_NAME);
      const jobId = await insertJobRow(own.db, { teamId: local.id, status: 'completed' });
      const ws = new WebSocket(`${own.wsUrl}/v2/crawl/${jobId}`, ['anything']);
      const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
      await new Promise((resolve) => ws.once('open', resolve));
      expect(ws.protocol).toBe('anything');
      expect(await closed).toBe(1000);
    } finally {
      await own.close();
    }
  });
});

describe('shutdown', () => {
  it('closes open watchers with 1001 and stops accepting upgrades', async () => {
    const own = await startJobReadFixture();
    try {
      const jobId = await insertJobRow(own.db, { teamId: own.team.teamId });
      const ws = new WebSocket(`${own.wsUrl}/v2/crawl/${jobId}`, [own.team.key]);
      const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
      await new Promise((resolve) => ws.once('message', resolve));
      own.websocket.close();
      expect(await closed).toBe(1001);
    } finally {
      await own.close();
    }
  });
});
