/**
 * A worker SIGKILLed while it holds a browser session (issue #36): the session ends `lost`, the
 * next execute answers 410 SESSION_LOST instead of hanging, the time after the worker died is
 * not billed, and the profile keeps what was last saved. Its own API and workers on the shared
 * Temporal and database, so the kill touches no other file's worker.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../../lib/ports.js';
import { startStack, type Stack } from '../../scripts/stack.js';
import { apiClient } from '../helpers/api-client.js';
import { startPageServer, type PageServer } from '../helpers/page-server.js';
import { createKeyWithCli } from '../helpers/run-admin.js';
import { E2E_ENV } from '../e2e/global-setup.js';
import { e2eContext } from '../e2e/context.js';

const { databaseUrl, temporalAddress } = e2eContext();
let stack: Stack;
let site: PageServer;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  site = await startPageServer({ '/a': '<h1>A</h1><p>Page A.</p>' });
  stack = await startStack({
    databaseUrl,
    temporal: { address: temporalAddress },
    apiPort: await findFreePort(),
    env: { ...E2E_ENV, TEMPORAL_TASK_QUEUE: 'trawl-session-lost' },
    log: () => undefined,
  });
  api = apiClient(stack.apiUrl, await createKeyWithCli(databaseUrl, 'session-lost'));
}, 300_000);

afterAll(async () => {
  await stack?.stop();
  await site?.close();
});

describe('a worker killed mid-session', () => {
  it('ends the session lost: SESSION_LOST, no hang, no charge for the time after, the profile as last saved', async () => {
    const holder = stack.workers[0]!;
    const created = await api('/v2/browser', { body: { ttl: 600, profile: { name: 'kept', saveChanges: true } } });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = created.body.id as string;
    const ran = await api(`/v2/browser/${id}/execute`, { body: { code: `open ${site.origin}/a`, language: 'bash' } });
    expect(ran.body).toMatchObject({ success: true, exitCode: 0 });
    const lastSeenAlive = Date.now();
    // A second worker runs the session's workflow on; the first, holding the page, dies.
    await stack.startWorker();
    await holder.kill('SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 3_000));

    const started = Date.now();
    const after = await api(`/v2/browser/${id}/execute`, { body: { code: 'get title', language: 'bash' } });
    expect(after).toMatchObject({ status: 410, body: { success: false, code: 'SESSION_LOST' } });
    expect(Date.now() - started).toBeLessThan(30_000);

    let session = (await api(`/v2/browser/${id}`)).body;
    for (let i = 0; i < 60 && session.status === 'active'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      session = (await api(`/v2/browser/${id}`)).body;
    }
    expect(session).toMatchObject({ status: 'lost', endReason: 'the worker holding it stopped' });
    // Billed up to the last execute the session answered, not the seconds it was gone.
    expect(session.sessionDurationMs).toBeLessThanOrEqual(lastSeenAlive - Date.parse(session.createdAt) + 1_000);
    expect(session.creditsBilled).toBe(2);
    // Never saved (the close never ran on the dead worker): the profile was not written.
    expect((await api('/v2/browser/profiles')).body.profiles).toEqual([]);
    // The surviving worker takes new sessions.
    const next = await api('/v2/browser', { body: { ttl: 60 } });
    expect(next.status).toBe(200);
    expect((await api(`/v2/browser/${next.body.id}`, { method: 'DELETE' })).status).toBe(200);
  });
});
