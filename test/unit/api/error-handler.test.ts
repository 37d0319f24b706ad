import express from 'express';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { errorHandler, notFoundHandler } from '../../../api/errors.js';
import { createLogger } from '../../../lib/log.js';

let base: string;
let close: () => void;

beforeAll(async () => {
  const app = express();
  app.use(express.json({ limit: 1024 }));
  app.post('/boom', () => {
    throw new Error('secret internal detail at /srv/app/thing.ts:42');
  });
  app.use(notFoundHandler);
  app.use(errorHandler(createLogger('silent')));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => server.close();
});
afterAll(() => close());

it('turns an unexpected error into 500 UNKNOWN_ERROR with an error id and no stack or message', async () => {
  const res = await fetch(`${base}/boom`, { method: 'POST' });
  expect(res.status).toBe(500);
  const body = await res.json();
  expect(body.success).toBe(false);
  expect(body.code).toBe('UNKNOWN_ERROR');
  expect(body.error).toMatch(/exception ID is|exception ID: [0-9a-f-]{36}/);
  expect(JSON.stringify(body)).not.toContain('secret internal detail');
  expect(JSON.stringify(body)).not.toContain('.ts:');
});

it('answers oversized and malformed bodies in the envelope', async () => {
  const big = await fetch(`${base}/boom`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ x: 'y'.repeat(5000) }) });
  expect(big.status).toBe(413);
  expect(await big.json()).toMatchObject({ success: false, code: 'PAYLOAD_TOO_LARGE' });
  const bad = await fetch(`${base}/boom`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{nope' });
  expect(bad.status).toBe(400);
  expect(await bad.json()).toMatchObject({ success: false, code: 'BAD_REQUEST_INVALID_JSON' });
});
