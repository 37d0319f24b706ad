import { createHmac, randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDeliverWebhookActivity } from '../../../activities/deliver-webhook.js';
import { insertJob } from '../../../db/repositories/jobs.js';
import { findOrCreateTeam } from '../../../db/repositories/teams.js';
import { findWebhookSecret, setWebhookSecret } from '../../../db/repositories/webhook-secrets.js';
import type { DeliverWebhookInput, WebhookPayload } from '../../../lib/webhook-events.js';
import { closeGuardedDispatchers } from '../../../scraper/net/guarded-dispatcher.js';
import { createTestDb, type TestDb } from '../../helpers/test-db.js';
import { startLocalServer, type LocalServer } from '../net/local-server.js';

const SECRET = 'whsec_test_secret';

interface Received {
  headers: IncomingHttpHeaders;
  raw: Buffer;
}

let testDb: TestDb;
let signedTeamId: string;
let unsignedTeamId: string;
let jobId: string;
let documentId: string;
const storedDocument = {
  markdown: '# Hello',
  metadata: { sourceURL: 'https://example.com/', url: 'https://example.com/', statusCode: 200, scrapeId: '' },
};

const servers: LocalServer[] = [];

/** A receiver that records every delivery and answers `status`. */
async function receiver(status = 200): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = await startLocalServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, raw: Buffer.concat(chunks) });
      res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  servers.push(server);
  return { url: `${server.origin}/hooks/trawl?token=abc`, received };
}

function input(url: string, overrides: Partial<DeliverWebhookInput> = {}): DeliverWebhookInput {
  return {
    jobId,
    teamId: signedTeamId,
    jobKind: 'crawl',
    event: 'started',
    webhook: { url, headers: {}, metadata: {}, events: ['started', 'page', 'completed', 'failed'] },
    deliveryId: randomUUID(),
    ...overrides,
  };
}

// The mock worker logs every failed attempt at WARN; the failures here are the point of the tests.
const quietLogger = new DefaultLogger('ERROR');

async function deliver(
  payload: DeliverWebhookInput,
  allowPrivateNetwork = true,
  env = new MockActivityEnvironment(undefined, { logger: quietLogger }),
): Promise<{ status: number }> {
  const activity = createDeliverWebhookActivity({ db: testDb.db, allowPrivateNetwork });
  return env.run(activity, payload);
}

async function failure(promise: Promise<unknown>): Promise<ApplicationFailure> {
  const err: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApplicationFailure);
  return err as ApplicationFailure;
}

function failureCode(err: ApplicationFailure): unknown {
  return (err.details?.[0] as { code?: unknown } | undefined)?.code;
}

function parse(delivery: Received | undefined): WebhookPayload {
  expect(delivery).toBeDefined();
  return JSON.parse(delivery!.raw.toString('utf8')) as WebhookPayload;
}

beforeAll(async () => {
  testDb = await createTestDb('trawl_webhooks');
  const { db } = testDb;
  signedTeamId = (await findOrCreateTeam(db, 'signed')).id;
  unsignedTeamId = (await findOrCreateTeam(db, 'unsigned')).id;
  expect(await setWebhookSecret(db, { name: 'signed' }, SECRET)).toBe(true);
  jobId = randomUUID();
  await insertJob(db, {
    id: jobId,
    team_id: signedTeamId,
    kind: 'crawl',
    status: 'scraping',
    url: 'https://example.com/',
    options: '{}',
    workflow_id: `crawl-${jobId}`,
    updated_at: new Date(),
    expires_at: new Date(Date.now() + 86_400_000),
  });
  documentId = randomUUID();
  storedDocument.metadata.scrapeId = documentId;
  const body = JSON.stringify(storedDocument);
  await db
    .insertInto('documents')
    .values({
      id: documentId,
      job_id: jobId,
      team_id: signedTeamId,
      url: 'https://example.com/',
      url_key: 'example-key',
      status: 'completed',
      document: body,
      size_bytes: Buffer.byteLength(body),
      credits_used: 1,
    })
    .execute();
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

afterAll(async () => {
  await closeGuardedDispatchers();
  await testDb?.drop();
});

describe('webhook secrets', () => {
  it('sets, finds and clears a team secret by id or name', async () => {
    const { db } = testDb;
    expect(await findWebhookSecret(db, signedTeamId)).toBe(SECRET);
    expect(await findWebhookSecret(db, unsignedTeamId)).toBeNull();
    expect(await setWebhookSecret(db, { id: unsignedTeamId }, 'other')).toBe(true);
    expect(await findWebhookSecret(db, unsignedTeamId)).toBe('other');
    expect(await setWebhookSecret(db, { name: 'unsigned' }, null)).toBe(true);
    expect(await findWebhookSecret(db, unsignedTeamId)).toBeNull();
    expect(await setWebhookSecret(db, { name: 'no such team' }, 'x')).toBe(false);
  });
});

describe('deliverWebhook', () => {
  it('sends a page event with the stored document, signed over the raw body', async () => {
    const hook = await receiver();
    const deliveryId = randomUUID();

    const result = await deliver(
      input(hook.url, {
        event: 'page',
        documentId,
        deliveryId,
        webhook: {
          url: hook.url,
          headers: { 'X-Custom-Auth': 'Bearer abc', 'X-Firecrawl-Signature': 'forged' },
          metadata: { source: 'test', n: 1 },
          events: ['page'],
        },
      }),
    );

    expect(result).toEqual({ status: 200 });
    expect(hook.received).toHaveLength(1);
    const [delivery] = hook.received;
    const payload = parse(delivery);
    expect(payload).toEqual({
      success: true,
      type: 'crawl.page',
      id: jobId,
      webhookId: deliveryId,
      data: [storedDocument],
      metadata: { source: 'test', n: 1 },
    });
    expect((payload.data[0]?.metadata as { scrapeId?: string }).scrapeId).toBe(documentId);
    expect(delivery!.headers['content-type']).toBe('application/json');
    expect(delivery!.headers['x-custom-auth']).toBe('Bearer abc');
    const expected = `sha256=${createHmac('sha256', SECRET).update(delivery!.raw).digest('hex')}`;
    expect(delivery!.headers['x-firecrawl-signature']).toBe(expected);
  });

  it('sends no signature for a team without a secret', async () => {
    const hook = await receiver();
    await deliver(input(hook.url, { teamId: unsignedTeamId }));
    expect(hook.received[0]?.headers['x-firecrawl-signature']).toBeUndefined();
  });

  it('sends started and completed events with empty data', async () => {
    const hook = await receiver();
    await deliver(input(hook.url, { event: 'started', jobKind: 'batch_scrape' }));
    await deliver(input(hook.url, { event: 'completed', jobKind: 'batch_scrape' }));

    const [started, completed] = hook.received.map(parse);
    expect(started).toMatchObject({ success: true, type: 'batch_scrape.started', id: jobId, data: [], metadata: {} });
    expect(completed).toMatchObject({ success: true, type: 'batch_scrape.completed', id: jobId, data: [] });
    expect(started).not.toHaveProperty('error');
  });

  it('sends a failed event with success false and the error', async () => {
    const hook = await receiver();
    await deliver(input(hook.url, { event: 'failed', error: 'Crawl failed: robots.txt unreachable' }));
    expect(parse(hook.received[0])).toMatchObject({
      success: false,
      type: 'crawl.failed',
      data: [],
      error: 'Crawl failed: robots.txt unreachable',
    });
  });

  it('keeps the webhookId stable across attempts of one delivery', async () => {
    const hook = await receiver();
    const payload = input(hook.url);
    await deliver(payload);
    await deliver(payload);
    const [first, second] = hook.received.map(parse);
    expect(first?.webhookId).toBe(payload.deliveryId);
    expect(second?.webhookId).toBe(payload.deliveryId);
  });

  it('throws a retryable failure when the receiver answers 500', async () => {
    const hook = await receiver(500);
    const err = await failure(deliver(input(hook.url)));
    expect(err.nonRetryable).toBe(false);
    expect(failureCode(err)).toBe('WEBHOOK_DELIVERY_FAILED');
    expect(err.message).toContain('500');
    expect(hook.received).toHaveLength(1);
  });

  it('throws a retryable failure when the receiver answers 429', async () => {
    const hook = await receiver(429);
    const err = await failure(deliver(input(hook.url)));
    expect(err.nonRetryable).toBe(false);
  });

  it('throws a non-retryable failure when the receiver rejects the request with 404', async () => {
    const hook = await receiver(404);
    const err = await failure(deliver(input(hook.url)));
    expect(err.nonRetryable).toBe(true);
    expect(failureCode(err)).toBe('WEBHOOK_DELIVERY_FAILED');
  });

  it('keeps the webhook URL path and query out of error messages', async () => {
    const hook = await receiver(500);
    const err = await failure(deliver(input(hook.url)));
    expect(err.message).not.toContain('token=abc');
    expect(JSON.stringify(err.details)).not.toContain('token=abc');
  });

  it('refuses a private target as non-retryable unless private networks are allowed', async () => {
    const hook = await receiver();
    const err = await failure(deliver(input(hook.url), false));
    expect(err.nonRetryable).toBe(true);
    expect(failureCode(err)).toBe('WEBHOOK_TARGET_BLOCKED');
    expect(hook.received).toHaveLength(0);
  });

  it('reports a cancelled attempt as cancelled, not as a delivery failure', async () => {
    // Never answers; closing the server afterwards drops the open socket.
    const server = await startLocalServer(() => undefined);
    servers.push(server);
    const env = new MockActivityEnvironment(undefined, { logger: quietLogger });
    const pending = deliver(input(`${server.origin}/hook`), true, env).then(
      () => undefined,
      (e: unknown) => e,
    );
    await expect.poll(() => server.hits()).toBe(1);
    env.cancel();
    expect(await pending).toBeInstanceOf(CancelledFailure);
  });

  it('fails a page event whose document is missing or belongs to another team, without retrying', async () => {
    const hook = await receiver();
    const missing = await failure(deliver(input(hook.url, { event: 'page', documentId: randomUUID() })));
    expect(missing.nonRetryable).toBe(true);
    expect(failureCode(missing)).toBe('NOT_FOUND');
    const foreign = await failure(deliver(input(hook.url, { event: 'page', documentId, teamId: unsignedTeamId })));
    expect(failureCode(foreign)).toBe('NOT_FOUND');
    expect(hook.received).toHaveLength(0);
  });
});
