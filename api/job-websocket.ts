/**
 * The crawl watcher websocket (`/v2/crawl/:id`, `/v1/crawl/:id`, `/v2/batch/scrape/:id`), as
 * Firecrawl speaks it: a `catchup` message with the status and every document so far, one
 * `document` message per page finished after that, and a close with code 1000 and reason
 * `{"type":"done"}` once the job ends. Progress is read from Postgres, so any API process can
 * serve any job's watcher.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { findActiveKeyOwner } from '../db/repositories/api-keys.js';
import { listCompletedDocuments, type DocumentCursor } from '../db/repositories/crawl-read.js';
import { findTeamJob } from '../db/repositories/jobs.js';
import { findOrCreateTeam } from '../db/repositories/teams.js';
import type { Job, JobStatus } from '../db/schema.js';
import type { AppDeps } from './deps.js';
import { hashApiKey, keyAllows } from './auth/api-keys.js';
import {
  documentPaging,
  findListedJob,
  jobStatusView,
  type JobStatusView,
  type ListedJobKind,
} from './job-view.js';
import { LOCAL_TEAM_NAME } from './middleware/auth.js';

/** v1's crawl path serves batch scrapes too, as its status route does (the v1 SDK watches batches there). */
const ROUTES: { pattern: RegExp; kinds: readonly ListedJobKind[] }[] = [
  { pattern: /^\/v2\/crawl\/([^/]+)\/?$/, kinds: ['crawl'] },
  { pattern: /^\/v1\/crawl\/([^/]+)\/?$/, kinds: ['crawl', 'batch_scrape'] },
  { pattern: /^\/v2\/batch\/scrape\/([^/]+)\/?$/, kinds: ['batch_scrape'] },
];

const POLL_INTERVAL_MS = 500;
/** A client that misses a whole interval of pings is gone; its socket is destroyed. */
const HEARTBEAT_INTERVAL_MS = 30_000;
const FEED_PAGE_DOCUMENTS = 100;
/** Clients have nothing to say on this socket; a small cap stops anyone making us buffer much. */
const MAX_INCOMING_MESSAGE_BYTES = 4 * 1024;

const CLOSE_NORMAL = 1000;
const CLOSE_GOING_AWAY = 1001;
const CLOSE_POLICY_VIOLATION = 1008;
const CLOSE_INTERNAL_ERROR = 1011;
/** Firecrawl's code for a failed authentication. */
const CLOSE_UNAUTHORIZED = 3000;

const DONE_REASON = JSON.stringify({ type: 'done' });

export interface JobWebSocket {
  /** Stops accepting upgrades and closes every open watcher with 1001, so the HTTP server can close. */
  close(): void;
}

/**
 * Serves the watcher websocket on the HTTP server's `upgrade` event. It assumes it is the only
 * upgrade handler: an upgrade to any other path is refused with 404.
 */
export function attachJobWebSocket(server: Server, deps: AppDeps): JobWebSocket {
  const log = deps.log.child({ component: 'job-websocket' });
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_INCOMING_MESSAGE_BYTES,
    // The SDK sends the API key as the subprotocol, and WHATWG clients drop a handshake that
    // does not echo the protocol they offered.
    handleProtocols: (protocols) => protocols.values().next().value ?? false,
  });
  const watches = new Set<JobWatch>();
  const auth = upgradeAuthenticator(deps);

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const route = matchRoute(req.url);
    if (!route) {
      socket.on('error', () => socket.destroy());
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const watch = new JobWatch(ws, deps, log.child({ jobId: route.jobId }));
      watches.add(watch);
      ws.once('close', () => watches.delete(watch));
      void watch.run(() => watch.open(route, () => auth(req)));
    });
  };
  server.on('upgrade', onUpgrade);

  return {
    close() {
      server.off('upgrade', onUpgrade);
      for (const watch of watches) watch.close(CLOSE_GOING_AWAY, errorReason('Server shutting down'));
      wss.close();
    },
  };
}

interface MatchedRoute {
  jobId: string;
  kinds: readonly ListedJobKind[];
}

function matchRoute(url: string | undefined): MatchedRoute | undefined {
  const pathname = (url ?? '/').split('?')[0] ?? '/';
  for (const { pattern, kinds } of ROUTES) {
    const match = pattern.exec(pathname);
    if (match?.[1]) return { jobId: match[1], kinds };
  }
  return undefined;
}

type UpgradeAuth = { teamId: string } | { error: string };

/** The same decisions as api/middleware/auth.ts, with the key also accepted as the subprotocol. */
function upgradeAuthenticator(deps: AppDeps): (req: IncomingMessage) => Promise<UpgradeAuth> {
  let localTeam: Promise<string> | undefined;
  return async (req) => {
    if (deps.config.auth === 'none') {
      localTeam ??= findOrCreateTeam(deps.db, LOCAL_TEAM_NAME).then((t) => t.id);
      try {
        return { teamId: await localTeam };
      } catch (err) {
        localTeam = undefined;
        throw err;
      }
    }
    const token = bearerToken(req.headers.authorization) ?? firstProtocol(req.headers['sec-websocket-protocol']);
    const owner = token ? await findActiveKeyOwner(deps.db, hashApiKey(token)) : undefined;
    if (!owner) return { error: 'Unauthorized' };
    if (!keyAllows(owner.scopes, 'crawl')) return { error: 'Forbidden' };
    return { teamId: owner.teamId };
  };
}

function bearerToken(header: string | undefined): string | undefined {
  return header?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
}

function firstProtocol(header: string | undefined): string | undefined {
  return header?.split(',')[0]?.trim() || undefined;
}

function errorReason(error: string): string {
  return JSON.stringify({ type: 'error', error });
}

/** One client watching one job. Timers run only while the socket is open. */
class JobWatch {
  private cursor: DocumentCursor | null = null;
  private pollTimer: NodeJS.Timeout | undefined;
  private readonly heartbeat: NodeJS.Timeout;
  private alive = true;
  private closed = false;

  constructor(
    private readonly ws: WebSocket,
    private readonly deps: AppDeps,
    /** Bound to the job id; the job's workflow and team are added once the job is found. */
    private log: AppDeps['log'],
  ) {
    ws.on('pong', () => {
      this.alive = true;
    });
    ws.on('close', () => this.stop());
    ws.on('error', (err) => {
      this.log.debug({ err }, 'job-websocket: socket error');
      this.stop();
    });
    this.heartbeat = setInterval(() => {
      if (!this.alive) {
        this.ws.terminate();
        return;
      }
      this.alive = false;
      this.ws.ping();
    }, HEARTBEAT_INTERVAL_MS);
  }

  /** Runs one step; a failure while the client is still there ends the watch with 1011. */
  async run(step: () => Promise<void>): Promise<void> {
    try {
      await step();
    } catch (err) {
      if (this.closed) return;
      this.log.error({ err }, 'job-websocket: watch failed');
      this.close(CLOSE_INTERNAL_ERROR, errorReason('Internal server error'));
    }
  }

  async open(route: MatchedRoute, authenticate: () => Promise<UpgradeAuth>): Promise<void> {
    const auth = await authenticate();
    if ('error' in auth) {
      this.close(CLOSE_UNAUTHORIZED, errorReason(auth.error));
      return;
    }
    const job = await findListedJob(this.deps.db, auth.teamId, route.jobId, route.kinds);
    if (!job) {
      this.close(CLOSE_POLICY_VIOLATION, errorReason('Job not found'));
      return;
    }
    this.log = this.log.child({ workflowId: job.workflow_id, teamId: job.team_id });
    const view = await jobStatusView(this.deps.db, job);
    await this.sendCatchup(job, view);
    this.continueOrFinish(job, view.status);
  }

  close(code: number, reason: string): void {
    if (this.closed) return;
    this.stop();
    this.ws.close(code, reason);
  }

  private stop(): void {
    this.closed = true;
    clearTimeout(this.pollTimer);
    clearInterval(this.heartbeat);
  }

  /**
   * Streamed as fragments of one message, a page of documents at a time, so a watcher joining a
   * large crawl does not make the API hold every document in memory at once.
   */
  private async sendCatchup(job: Job, view: JobStatusView): Promise<void> {
    const header = JSON.stringify({ type: 'catchup', data: { success: true, ...view } });
    await this.send(`${header.slice(0, -2)},"data":[`, false);
    let separator = '';
    for await (const documents of this.newDocuments(job.id, view.status)) {
      await this.send(separator + documents.map((d) => JSON.stringify(d)).join(','), false);
      separator = ',';
    }
    await this.send(']}}', true);
  }

  private continueOrFinish(job: Job, status: JobStatus): void {
    if (this.closed) return;
    if (status !== 'scraping') {
      this.close(CLOSE_NORMAL, DONE_REASON);
      return;
    }
    this.pollTimer = setTimeout(() => void this.run(() => this.poll(job)), POLL_INTERVAL_MS);
  }

  private async poll(job: Job): Promise<void> {
    // Status first: documents written before the job ended are then all read below.
    const current = await findTeamJob(this.deps.db, job.team_id, job.id);
    if (!current) {
      this.close(CLOSE_POLICY_VIOLATION, errorReason('Job not found'));
      return;
    }
    for await (const documents of this.newDocuments(job.id, current.status)) {
      for (const document of documents) await this.send(JSON.stringify({ type: 'document', data: document }));
    }
    this.continueOrFinish(job, current.status);
  }

  private async *newDocuments(jobId: string, status: JobStatus): AsyncGenerator<Record<string, unknown>[]> {
    for (;;) {
      if (this.closed) return;
      const page = await listCompletedDocuments(
        this.deps.db,
        jobId,
        documentPaging(status, { after: this.cursor, limit: FEED_PAGE_DOCUMENTS }),
      );
      if (page.last) this.cursor = page.last;
      if (page.documents.length > 0) yield page.documents;
      if (!page.hasMore) return;
    }
  }

  /** Resolves once the frame is handed to the socket, which paces the feed to the client. */
  private send(data: string, fin = true): Promise<void> {
    return new Promise((resolve, reject) => {
      this.ws.send(data, { fin }, (err) => (err ? reject(err) : resolve()));
    });
  }
}
