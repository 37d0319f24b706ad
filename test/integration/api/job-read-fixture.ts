/**
 * A test database with two teams and a key each, the job-read routers and the watcher websocket
 * on a bare Express app, and helpers that write jobs, pages and documents the way the crawl
 * activities do.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Router } from 'express';
import { insertApiKey } from '../../../db/repositories/api-keys.js';
import { findOrCreateTeam } from '../../../db/repositories/teams.js';
import type { Db } from '../../../db/connect.js';
import type { CrawlPageStatus, DocumentStatus, JobKind, JobStatus } from '../../../db/schema.js';
import { loadConfig } from '../../../lib/config.js';
import { createLogger } from '../../../lib/log.js';
import type { AppDeps } from '../../../api/deps.js';
import { generateApiKey, hashApiKey, keyPrefix } from '../../../api/auth/api-keys.js';
import { errorHandler, notFoundHandler } from '../../../api/errors.js';
import { attachJobWebSocket, type JobWebSocket } from '../../../api/job-websocket.js';
import { crawlActiveRoutes } from '../../../api/routes/crawl-active.js';
import { jobStatusRoutes } from '../../../api/routes/job-status.js';
import { createTestDb } from '../../helpers/test-db.js';

export interface TeamKey {
  teamId: string;
  key: string;
}

export interface JobReadFixture {
  db: Db;
  /** `http://127.0.0.1:PORT` */
  baseUrl: string;
  /** `ws://127.0.0.1:PORT` */
  wsUrl: string;
  team: TeamKey;
  otherTeam: TeamKey;
  /** A key of `team` limited to the scrape scope. */
  scrapeOnlyKey: string;
  websocket: JobWebSocket;
  close(): Promise<void>;
}

export interface FixtureOptions {
  publicUrl?: string;
  /** @default 'keys' */
  auth?: 'keys' | 'none';
  /** Register the status routes before the active-crawl routes, to prove the order does not matter. */
  statusRoutesFirst?: boolean;
}

export async function startJobReadFixture(options: FixtureOptions = {}): Promise<JobReadFixture> {
  const testDb = await createTestDb('trawl_api_read');
  const { db } = testDb;
  const team = await teamWithKey(db, `team-${randomUUID()}`);
  const otherTeam = await teamWithKey(db, `other-${randomUUID()}`);
  const scrapeOnlyKey = generateApiKey();
  await insertApiKey(db, {
    teamId: team.teamId,
    keyHash: hashApiKey(scrapeOnlyKey),
    keyPrefix: keyPrefix(scrapeOnlyKey),
    scopes: ['scrape'],
  });

  const deps: AppDeps = {
    db,
    config: loadConfig({ AUTH: options.auth ?? 'keys', DATABASE_URL: testDb.url, PUBLIC_URL: options.publicUrl }),
    log: createLogger('silent'),
    temporal: {} as never,
    features: { llmConfigured: false },
    storedScrapes: {} as never,
  };
  const app = express();
  app.set('trust proxy', 'loopback, linklocal, uniquelocal');
  app.use(express.json());
  const routers: Router[] = [crawlActiveRoutes(deps), jobStatusRoutes(deps)];
  if (options.statusRoutesFirst) routers.reverse();
  for (const router of routers) app.use(router);
  app.use(notFoundHandler);
  app.use(errorHandler(deps.log));

  const server: Server = createServer(app);
  const websocket = attachJobWebSocket(server, deps);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    db,
    baseUrl: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}`,
    team,
    otherTeam,
    scrapeOnlyKey,
    websocket,
    close: async () => {
      websocket.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await testDb.drop();
    },
  };
}

async function teamWithKey(db: Db, name: string): Promise<TeamKey> {
  const team = await findOrCreateTeam(db, name);
  const key = generateApiKey();
  await insertApiKey(db, { teamId: team.id, keyHash: hashApiKey(key), keyPrefix: keyPrefix(key), scopes: null });
  return { teamId: team.id, key };
}

export interface JobSeed {
  teamId: string;
  kind?: JobKind;
  status?: JobStatus;
  url?: string;
  options?: Record<string, unknown>;
  warning?: string | null;
  expiresAt?: Date;
}

export async function insertJobRow(db: Db, seed: JobSeed): Promise<string> {
  const id = randomUUID();
  await db
    .insertInto('jobs')
    .values({
      id,
      team_id: seed.teamId,
      kind: seed.kind ?? 'crawl',
      status: seed.status ?? 'scraping',
      url: seed.url ?? 'https://example.com/',
      options: JSON.stringify(seed.options ?? { limit: 10, scrapeOptions: { formats: ['markdown'] } }),
      workflow_id: `crawl-${id}`,
      updated_at: new Date(),
      expires_at: seed.expiresAt ?? new Date(Date.now() + 24 * 60 * 60 * 1000),
      warning: seed.warning ?? null,
    })
    .execute();
  return id;
}

export async function setJobRowStatus(db: Db, jobId: string, status: JobStatus): Promise<void> {
  await db.updateTable('jobs').set({ status, updated_at: new Date() }).where('id', '=', jobId).execute();
}

export async function insertPages(
  db: Db,
  jobId: string,
  pages: { status: CrawlPageStatus; url?: string; documentId?: string }[],
): Promise<void> {
  if (pages.length === 0) return;
  await db
    .insertInto('crawl_pages')
    .values(
      pages.map((p, i) => {
        const url = p.url ?? `https://example.com/page-${i}-${randomUUID()}`;
        return { job_id: jobId, url_key: url, url, depth: 1, status: p.status, document_id: p.documentId ?? null };
      }),
    )
    .execute();
}

export interface DocumentSeed {
  jobId: string;
  teamId: string;
  url?: string;
  status?: DocumentStatus;
  /** Defaults to a small document naming the URL. */
  document?: Record<string, unknown>;
  /** Defaults to the JSON size of `document`; tests may claim a different size. */
  sizeBytes?: number;
  creditsUsed?: number;
  errorCode?: string;
  error?: string;
  /** Defaults to the database clock at insert time, as in production. */
  createdAt?: Date;
}

export async function insertDocumentRow(db: Db, seed: DocumentSeed): Promise<string> {
  const id = randomUUID();
  const url = seed.url ?? `https://example.com/doc-${id}`;
  const status = seed.status ?? 'completed';
  const document =
    status === 'completed'
      ? (seed.document ?? { markdown: `# ${url}`, metadata: { sourceURL: url, url, scrapeId: id, statusCode: 200 } })
      : null;
  const body = document ? JSON.stringify(document) : null;
  await db
    .insertInto('documents')
    .values({
      id,
      job_id: seed.jobId,
      team_id: seed.teamId,
      url,
      url_key: url,
      status,
      document: body,
      size_bytes: seed.sizeBytes ?? (body ? Buffer.byteLength(body) : 0),
      error_code: seed.errorCode ?? null,
      error: seed.error ?? null,
      credits_used: seed.creditsUsed ?? (status === 'completed' ? 1 : 0),
      ...(seed.createdAt && { created_at: seed.createdAt }),
    })
    .execute();
  return id;
}

/** `count` completed documents created one millisecond apart, starting a minute ago; returns ids in order. */
export async function insertCompletedDocuments(
  db: Db,
  job: { jobId: string; teamId: string },
  count: number,
  start = new Date(Date.now() - 60_000),
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    ids.push(
      await insertDocumentRow(db, {
        ...job,
        url: `https://example.com/p/${i}`,
        createdAt: new Date(start.getTime() + i),
      }),
    );
  }
  return ids;
}
