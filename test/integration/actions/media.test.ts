/**
 * Stored screenshots and PDFs: file names, the activity's publisher, the retention (reads and
 * the purge), and GET /v2/media on a bare Express app over a real test database.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Request } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mediaPublisher } from '../../../activities/page/media.js';
import type { AppDeps } from '../../../api/deps.js';
import { errorHandler, notFoundHandler } from '../../../api/errors.js';
import { mediaBaseUrl, mediaRoutes } from '../../../api/routes/media.js';
import { deleteExpiredMedia, findLiveMedia } from '../../../db/repositories/media.js';
import { findOrCreateTeam } from '../../../db/repositories/teams.js';
import { ConfigError, loadConfig } from '../../../lib/config.js';
import { createLogger } from '../../../lib/log.js';
import { mediaFileName, newMediaId, parseMediaFileName } from '../../../lib/media-files.js';
import { documentActions } from '../../../scraper/actions/action-results.js';
import { inlineMedia } from '../../../scraper/media.js';
import { createTestDb, type TestDb } from '../../helpers/test-db.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
const PDF = Buffer.from('%PDF-1.4 test', 'latin1');

let testDb: TestDb;
let server: Server;
let baseUrl: string;
let owner: { jobId: string; teamId: string };

beforeAll(async () => {
  testDb = await createTestDb('trawl_media');
  const team = await findOrCreateTeam(testDb.db, `media-${randomUUID()}`);
  const jobId = randomUUID();
  await testDb.db
    .insertInto('jobs')
    .values({
      id: jobId,
      team_id: team.id,
      kind: 'scrape',
      status: 'scraping',
      url: 'https://example.com/',
      options: JSON.stringify({}),
      workflow_id: `scrape-${jobId}`,
      updated_at: new Date(),
      expires_at: new Date(Date.now() + 86_400_000),
    })
    .execute();
  owner = { jobId, teamId: team.id };

  const deps = {
    db: testDb.db,
    config: loadConfig({ DATABASE_URL: testDb.url, MEDIA_RETENTION_HOURS: '2' }),
    log: createLogger('silent'),
  } as AppDeps;
  const app = express();
  app.use(mediaRoutes(deps));
  app.use(notFoundHandler);
  app.use(errorHandler(deps.log));
  server = createServer(app).listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server?.close();
  await testDb?.drop();
});

/** Stores bytes the way a page activity does and returns the URL the Document would carry. */
function publish(data: Buffer, mimeType: 'image/png' | 'image/jpeg' | 'application/pdf'): Promise<string> {
  return mediaPublisher(testDb.db, { ...owner, mediaBaseUrl: `${baseUrl}/v2/media` })!({ data, mimeType });
}

async function age(url: string, hours: number): Promise<void> {
  const { id } = parseMediaFileName(url.split('/').at(-1)!)!;
  await testDb.db
    .updateTable('media')
    .set({ created_at: new Date(Date.now() - hours * 3_600_000) } as never)
    .where('id', '=', id)
    .execute();
}

describe('media file names', () => {
  it('are 32 random bytes in base64url with the type as extension', () => {
    const id = newMediaId();
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(newMediaId()).not.toBe(id);
    expect(mediaFileName(id, 'image/png')).toBe(`${id}.png`);
    expect(parseMediaFileName(`${id}.jpg`)).toEqual({ id, mimeType: 'image/jpeg' });
    expect(parseMediaFileName(`${id}.pdf`)).toEqual({ id, mimeType: 'application/pdf' });
  });

  it('reject anything else', () => {
    const id = newMediaId();
    for (const name of [`${id}.gif`, `${id}`, `${id.slice(1)}.png`, `../${id}.png`, `${id}.png.exe`, '']) {
      expect(parseMediaFileName(name)).toBeUndefined();
    }
  });
});

describe('publishing', () => {
  it('stores bytes and links them under the base URL', async () => {
    const url = await publish(PNG, 'image/png');
    expect(url).toMatch(new RegExp(`^${baseUrl}/v2/media/[A-Za-z0-9_-]{43}\\.png$`));
    const stored = await findLiveMedia(testDb.db, parseMediaFileName(url.split('/').at(-1)!)!.id, 24);
    expect(stored?.mimeType).toBe('image/png');
    expect(stored?.data.equals(PNG)).toBe(true);
    expect(stored?.secondsLeft).toBeGreaterThan(24 * 3600 - 60);
  });

  it('without a base URL leaves media inline', async () => {
    expect(mediaPublisher(testDb.db, owner)).toBeUndefined();
    expect(await inlineMedia({ data: PNG, mimeType: 'image/png' })).toBe(`data:image/png;base64,${PNG.toString('base64')}`);
  });

  it("builds the Document's actions field, screenshots and PDFs through the publisher in order", async () => {
    const actions = await documentActions(
      {
        screenshots: [{ data: PNG, mimeType: 'image/png' }],
        scrapes: [{ url: 'https://example.com/', html: '<p>hi</p>' }],
        javascriptReturns: [{ type: 'number', value: 1 }],
        pdfs: [{ data: PDF, mimeType: 'application/pdf' }],
      },
      inlineMedia,
    );
    expect(actions).toEqual({
      screenshots: [`data:image/png;base64,${PNG.toString('base64')}`],
      scrapes: [{ url: 'https://example.com/', html: '<p>hi</p>' }],
      javascriptReturns: [{ type: 'number', value: 1 }],
      pdfs: [`data:application/pdf;base64,${PDF.toString('base64')}`],
    });
    // A page that gave nothing to act on (a 204) reports the lists empty.
    expect(await documentActions(undefined, inlineMedia)).toEqual({ screenshots: [], scrapes: [], javascriptReturns: [], pdfs: [] });
  });
});

describe('GET /v2/media/:file', () => {
  it('serves the bytes without an API key, with their type and cache headers', async () => {
    const url = await publish(PDF, 'application/pdf');
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const maxAge = Number(/max-age=(\d+)/.exec(res.headers.get('cache-control') ?? '')?.[1]);
    expect(maxAge).toBeGreaterThan(2 * 3600 - 60);
    expect(maxAge).toBeLessThanOrEqual(2 * 3600);
    expect(res.headers.get('cache-control')).toMatch(/^public, .*immutable/);
    expect(Buffer.from(await res.arrayBuffer()).equals(PDF)).toBe(true);
  });

  it('answers 404 for unknown names, a wrong extension and expired files', async () => {
    const url = await publish(PNG, 'image/png');
    expect((await fetch(url.replace(/\.png$/, '.jpg'))).status).toBe(404);
    expect((await fetch(`${baseUrl}/v2/media/${newMediaId()}.png`)).status).toBe(404);
    const bad = await fetch(`${baseUrl}/v2/media/not-a-media-name.png`);
    expect(bad.status).toBe(404);
    expect(await bad.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
    // The test app's retention is 2 hours.
    await age(url, 3);
    expect((await fetch(url)).status).toBe(404);
  });
});

describe('retention', () => {
  it('the purge deletes expired media in batches and keeps the rest', async () => {
    const expired = await Promise.all(Array.from({ length: 5 }, () => publish(PNG, 'image/png')));
    for (const url of expired) await age(url, 30);
    const fresh = await publish(PNG, 'image/png');
    expect(await deleteExpiredMedia(testDb.db, 24, 2)).toBeGreaterThanOrEqual(5);
    const left = await testDb.db.selectFrom('media').select('id').execute();
    const ids = new Set(left.map((r) => r.id));
    for (const url of expired) expect(ids.has(parseMediaFileName(url.split('/').at(-1)!)!.id)).toBe(false);
    expect(ids.has(parseMediaFileName(fresh.split('/').at(-1)!)!.id)).toBe(true);
  });
});

describe('configuration', () => {
  const req = { protocol: 'http', host: 'api.local:3002' } as Request;

  it('links media under PUBLIC_URL or the request host, unless SCREENSHOT_DATA_URIS is set', () => {
    expect(loadConfig({}).media).toEqual({ retentionHours: 24, dataUris: false });
    expect(mediaBaseUrl(req, loadConfig({}))).toBe('http://api.local:3002/v2/media');
    expect(mediaBaseUrl(req, loadConfig({ PUBLIC_URL: 'https://trawl.example/' }))).toBe('https://trawl.example/v2/media');
    expect(mediaBaseUrl(req, loadConfig({ SCREENSHOT_DATA_URIS: 'true' }))).toBeUndefined();
  });

  it('rejects a retention that is not a positive number of hours', () => {
    expect(() => loadConfig({ MEDIA_RETENTION_HOURS: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ MEDIA_RETENTION_HOURS: 'soon' })).toThrow(/MEDIA_RETENTION_HOURS/);
  });
});
