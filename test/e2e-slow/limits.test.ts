/**
 * Plans, the credit ledger and limits on the real stack: costs that match the ledger, 402 and
 * clamping, a crawl that runs out of credits part way, per-minute rate limits shared by API
 * processes, team concurrency for scrapes, crawls and batches, the usage endpoints through the
 * official SDK, isolation between teams, revocation across API processes, and 200 requests at once.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import Firecrawl from '@mendable/firecrawl-js';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { createDb, type Db } from '../../db/connect.js';
import { findTeamPlan, saveTeamPlan } from '../../db/repositories/plans.js';
import { findTeamByName } from '../../db/repositories/teams.js';
import { readPeriodUsage } from '../../db/repositories/usage.js';
import { CREDITS_EXHAUSTED_WARNING } from '../../lib/credits.js';
import { DEFAULT_PLAN, planColumns, resolvePlan } from '../../lib/plans.js';
import { findFreePort } from '../../lib/ports.js';
import { startStack, type Stack } from '../../scripts/stack.js';
import { apiClient } from '../helpers/api-client.js';
import { awayFromWindowEdge, E2E_RATE_LIMIT_WINDOW_SECONDS } from '../helpers/rate-limit-window.js';
import { createKeyWithCli, runAdmin } from '../helpers/run-admin.js';
import { e2eContext } from '../e2e/context.js';
import { E2E_ENV } from '../e2e/global-setup.js';

const { apiUrl, databaseUrl, temporalAddress } = e2eContext();

// MARK: - A site whose pages take as long as asked and count how many are fetched at once

interface PacedSite {
  url(path: string): string;
  peakInFlight(): number;
  reset(): void;
  close(): Promise<void>;
}

/**
 * `/p/<name>?ms=<delay>` is a page that answers after `delay` ms; `/?n=<count>&ms=<delay>` (the
 * hub, at the root so a crawl's default scope takes in /p/) links to `count` such pages. No
 * scripts, so the plain-HTTP engine serves every page.
 */
async function startPacedSite(): Promise<PacedSite> {
  let inFlight = 0;
  let peak = 0;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const ms = Number(url.searchParams.get('ms') ?? 0);
    const text = 'This paragraph is here so the page has enough server-rendered text to count as content.';
    let body: string;
    if (url.pathname === '/') {
      const n = Number(url.searchParams.get('n') ?? 0);
      const links = Array.from({ length: n }, (_, i) => `<li><a href="/p/${i}?ms=${ms}">Page ${i}</a></li>`).join('');
      body = `<html><head><title>Hub</title></head><body><h1>Hub</h1><p>${text}</p><ul>${links}</ul></body></html>`;
    } else if (url.pathname.startsWith('/p/')) {
      body = `<html><head><title>Page ${url.pathname}</title></head><body><h1>${url.pathname}</h1><p>${text}</p></body></html>`;
    } else {
      res.writeHead(404).end();
      return;
    }
    inFlight += 1;
    peak = Math.max(peak, inFlight);
    setTimeout(() => {
      inFlight -= 1;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    }, ms);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (path) => `${origin}${path}`,
    peakInFlight: () => peak,
    reset: () => {
      peak = inFlight;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// MARK: - Helpers

let site: PacedSite;
let db: Db;

beforeAll(async () => {
  site = await startPacedSite();
  db = createDb(databaseUrl, { maxConnections: 3 });
});
afterAll(async () => {
  await site?.close();
  await db?.destroy();
});
beforeEach(() => site.reset());

interface TestTeam {
  name: string;
  teamId: string;
  key: string;
  api: ReturnType<typeof apiClient>;
  sdk: Firecrawl;
}

/** A team with its own key and, when flags are given, a plan set through `teams set`. */
async function newTeam(name: string, planFlags: string[] = []): Promise<TestTeam> {
  const key = await createKeyWithCli(databaseUrl, name);
  if (planFlags.length > 0) await runAdmin(databaseUrl, ['teams', 'set', name, ...planFlags]);
  const team = await findTeamByName(db, name);
  return { name, teamId: team!.id, key, api: apiClient(apiUrl, key), sdk: new Firecrawl({ apiKey: key, apiUrl }) };
}

/** Polls a crawl or batch until it leaves `scraping`; returns the final status body. */
async function finished(api: TestTeam['api'], path: string, timeoutMs = 90_000): Promise<any> {
  const giveUp = Date.now() + timeoutMs;
  for (;;) {
    const res = await api(path);
    expect(res.status).toBe(200);
    if (res.body.status !== 'scraping') return res.body;
    if (Date.now() > giveUp) throw new Error(`${path} still scraping after ${timeoutMs} ms`);
    await sleep(300);
  }
}

async function ledgerSum(where: { teamId?: string; jobId?: string }): Promise<number> {
  let q = db.selectFrom('credit_ledger').select((eb) => eb.fn.coalesce(eb.fn.sum<number>('credits'), eb.lit(0)).as('n'));
  if (where.teamId) q = q.where('team_id', '=', where.teamId);
  if (where.jobId) q = q.where('job_id', '=', where.jobId);
  return Number((await q.executeTakeFirstOrThrow()).n);
}

async function until(condition: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const giveUp = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > giveUp) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(200);
  }
}

// MARK: - Tests

describe('plans from the admin CLI', () => {
  it('creates a team with `teams set`, changes only the fields given, and shows the plan and usage', async () => {
    const set = await runAdmin(databaseUrl, [
      'teams', 'set', 'plan-team',
      '--credits', '1234', '--scrape-rpm', '7', '--crawl-status-rpm', '99', '--concurrency', '3',
      '--zdr', 'true', '--webhook-secret', 'whsec-1',
    ]);
    expect(set.stdout).toContain('1234 per month; 0 used');
    expect(set.stdout).toContain('scrape 7/min');
    expect(set.stdout).toContain('crawl-status 99/min');
    expect(set.stdout).toContain('3 pages at once (0 in use)');
    expect(set.stdout).toMatch(/zdr\s+true/);
    expect(set.stdout).toMatch(/webhook secret\s+set/);

    await runAdmin(databaseUrl, ['teams', 'set', 'plan-team', '--crawl-rpm', '5', '--threat-protection', 'true']);
    const team = await findTeamByName(db, 'plan-team');
    const plan = resolvePlan(await findTeamPlan(db, team!.id));
    expect(plan).toEqual({
      ...DEFAULT_PLAN,
      monthlyCredits: 1234,
      rateLimits: { ...DEFAULT_PLAN.rateLimits, scrape: 7, crawl: 5, 'crawl-status': 99 },
      concurrency: 3,
      zeroDataRetention: true,
      threatProtection: true,
    });
    expect(team!.webhook_secret).toBe('whsec-1');

    const shown = (await runAdmin(databaseUrl, ['teams', 'show', 'plan-team'])).stdout;
    expect(shown).toContain('crawl 5/min');
    await expect(runAdmin(databaseUrl, ['teams', 'set', 'plan-team', '--concurrency', '0'])).rejects.toMatchObject({ code: 2 });
    await expect(runAdmin(databaseUrl, ['teams', 'show', 'no-such-team'])).rejects.toMatchObject({ code: 2 });
  });
});

describe('the ledger', () => {
  it('charges 1 credit per page, and documents, job status, the ledger and credit usage all agree', async () => {
    const team = await newTeam('ledger-team');
    const job = await team.sdk.crawl(site.url('/?n=6'), { limit: 20, pollInterval: 1, timeout: 120 });
    expect(job.status).toBe('completed');
    expect(job.completed).toBe(7);
    expect(job.data.map((d) => d.metadata?.creditsUsed)).toEqual(Array(7).fill(1));
    expect(job.creditsUsed).toBe(7);
    expect(await ledgerSum({ jobId: job.id! })).toBe(7);

    const scraped = await team.api('/v2/scrape', { body: { url: site.url('/p/single') } });
    expect(scraped.body.data.metadata.creditsUsed).toBe(1);
    expect(await ledgerSum({ jobId: scraped.body.data.metadata.scrapeId })).toBe(1);

    // Every ledger row names the document it paid for, with the same credits.
    const rows = await db
      .selectFrom('credit_ledger as l')
      .innerJoin('documents as d', 'd.id', 'l.document_id')
      .select(['l.credits', 'd.credits_used', 'd.status'])
      .where('l.team_id', '=', team.teamId)
      .execute();
    expect(rows).toHaveLength(8);
    expect(rows.every((r) => r.credits === r.credits_used && r.status === 'completed')).toBe(true);

    const usage = await team.sdk.getCreditUsage();
    expect(usage.planCredits).toBe(DEFAULT_PLAN.monthlyCredits);
    expect(usage.remainingCredits).toBe(DEFAULT_PLAN.monthlyCredits - 8);
    expect((await readPeriodUsage(db, team.teamId)).used).toBe(8);
  });
});

describe('credits running out', () => {
  it('answers 402 to every job-starting endpoint when no credits are left', async () => {
    const team = await newTeam('broke-team', ['--credits', '0']);
    for (const [path, body] of [
      ['/v2/scrape', { url: site.url('/p/1') }],
      ['/v2/crawl', { url: site.url('/?n=2') }],
      ['/v1/crawl', { url: site.url('/?n=2') }],
      ['/v2/batch/scrape', { urls: [site.url('/p/1')] }],
    ] as const) {
      const res = await team.api(path, { body });
      expect(res.status, path).toBe(402);
      expect(res.body).toEqual({ success: false, code: 'INSUFFICIENT_CREDITS', error: 'Payment Required: Insufficient credits' });
    }
    expect(await ledgerSum({ teamId: team.teamId })).toBe(0);
  });

  it('clamps a crawl and a batch to the credits left, with a warning, and then answers 402', async () => {
    const team = await newTeam('clamp-team', ['--credits', '5']);
    // The hub has 3 pages: the crawl is clamped to 5 but uses 3, leaving 2 for the batch.
    const crawl = await team.api('/v2/crawl', { body: { url: site.url('/?n=2'), limit: 10 } });
    expect(crawl.status).toBe(200);
    const crawled = await finished(team.api, `/v2/crawl/${crawl.body.id}`);
    expect(crawled).toMatchObject({ status: 'completed', completed: 3, total: 3, creditsUsed: 3 });
    expect(crawled.warning).toContain('Only 5 of 10 pages');
    expect(crawled.data).toHaveLength(3);

    const urls = ['a', 'b', 'c', 'd'].map((p) => site.url(`/p/${p}`));
    const batch = await team.api('/v2/batch/scrape', { body: { urls } });
    const batched = await finished(team.api, `/v2/batch/scrape/${batch.body.id}`);
    expect(batched).toMatchObject({ status: 'completed', completed: 2, total: 2, creditsUsed: 2 });
    expect(batched.warning).toContain('Only 2 of 4 pages');

    expect(await ledgerSum({ teamId: team.teamId })).toBe(5);
    expect((await team.sdk.getCreditUsage()).remainingCredits).toBe(0);
    expect((await team.api('/v2/scrape', { body: { url: urls[0] } })).status).toBe(402);
  });

  it('stops a crawl cleanly when credits run out part way: completed, with a warning, keeping its pages', async () => {
    const team = await newTeam('midway-team');
    // One page at a time, each taking a while, so the plan can be lowered while it runs.
    const started = await team.api('/v2/crawl', {
      body: { url: site.url('/?n=12&ms=600'), limit: 20, maxConcurrency: 1 },
    });
    const statusPath = `/v2/crawl/${started.body.id}`;
    await until(async () => (await team.api(statusPath)).body.completed >= 3);
    const allowed = (await readPeriodUsage(db, team.teamId)).used + 1;
    await saveTeamPlan(db, { team_id: team.teamId, ...planColumns({ ...DEFAULT_PLAN, monthlyCredits: allowed }) });

    const final = await finished(team.api, statusPath);
    expect(final.status).toBe('completed');
    expect(final.warning).toBe(CREDITS_EXHAUSTED_WARNING);
    expect(final.completed).toBe(allowed);
    expect(final.creditsUsed).toBe(allowed);
    expect(final.data).toHaveLength(allowed);
    // Pages never scraped leave the totals instead of sitting queued forever.
    expect(final.total).toBe(allowed);
    expect(await ledgerSum({ jobId: started.body.id })).toBe(allowed);
    const errors = await team.api(`${statusPath}/errors`);
    expect(errors.body.errors).toEqual([]);
  });
});

describe('rate limits', () => {
  it('answers 429 with Retry-After past the per-minute limit, per endpoint class', async () => {
    const team = await newTeam('rpm-team', ['--scrape-rpm', '3', '--crawl-status-rpm', '4']);
    await awayFromWindowEdge();
    for (let i = 0; i < 3; i++) {
      const ok = await team.api('/v2/scrape', { body: { url: site.url(`/p/rpm-${i}`) } });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('x-ratelimit-limit')).toBe('3');
    }
    const limited = await team.api('/v2/scrape', { body: { url: site.url('/p/rpm-3') } });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ success: false, code: 'RATE_LIMITED' });
    expect(limited.body.error).toMatch(/^Rate limit exceeded/);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(E2E_RATE_LIMIT_WINDOW_SECONDS);

    // Status and usage reads have their own class: the scrape limit does not touch them.
    const reads = [];
    for (let i = 0; i < 5; i++) reads.push((await team.api('/v2/team/credit-usage')).status);
    expect(reads).toEqual([200, 200, 200, 200, 429]);
  });
});

describe('team concurrency', () => {
  it('makes a synchronous scrape beyond the limit wait, then answer 429 Concurrency limit reached', async () => {
    const team = await newTeam('sync-slot-team', ['--concurrency', '1']);
    const slow = team.api('/v2/scrape', { body: { url: site.url('/p/slow?ms=6000'), timeout: 20_000 } });
    await vi.waitFor(async () => expect(await team.sdk.getConcurrency()).toEqual({ concurrency: 1, maxConcurrency: 1 }), { timeout: 10_000, interval: 100 });
    const startedAt = Date.now();
    const refused = await team.api('/v2/scrape', { body: { url: site.url('/p/quick'), timeout: 4_000 } });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ success: false, code: 'CONCURRENCY_LIMITED', error: 'Concurrency limit reached' });
    expect(refused.headers.get('retry-after')).toBeTruthy();
    // It waited for a slot (about half its timeout) before giving up.
    expect(Date.now() - startedAt).toBeGreaterThan(1_500);
    expect((await slow).status).toBe(200);
    // The slot is free again, and the refused scrape cost nothing.
    expect((await team.api('/v2/scrape', { body: { url: site.url('/p/after') } })).status).toBe(200);
    expect(await ledgerSum({ teamId: team.teamId })).toBe(2);
    expect(await team.sdk.getConcurrency()).toEqual({ concurrency: 0, maxConcurrency: 1 });
  });

  it("queues crawl and batch pages under the team's limit across all its jobs, each job's maxConcurrency under it", async () => {
    const team = await newTeam('queue-team', ['--concurrency', '2']);
    const urls = (tag: string) => Array.from({ length: 6 }, (_, i) => site.url(`/p/${tag}-${i}?ms=400`));
    const first = await team.api('/v2/batch/scrape', { body: { urls: urls('a'), maxConcurrency: 5 } });
    const second = await team.api('/v2/batch/scrape', { body: { urls: urls('b'), maxConcurrency: 5 } });
    const crawl = await team.api('/v2/crawl', { body: { url: site.url('/?n=4&ms=400'), maxConcurrency: 5 } });

    // Once pages wait for the team's slots: the queue then shows both kinds.
    const queue = await vi.waitFor(
      async () => {
        const status = await team.sdk.getQueueStatus();
        expect(status.waitingJobsInQueue).toBeGreaterThan(0);
        return status;
      },
      { timeout: 10_000, interval: 100 },
    );
    expect(queue).toMatchObject({ success: true, maxConcurrency: 2 });
    expect(queue.activeJobsInQueue).toBeLessThanOrEqual(2);
    expect(queue.waitingJobsInQueue).toBeGreaterThan(0);
    expect(queue.jobsInQueue).toBe(queue.activeJobsInQueue + queue.waitingJobsInQueue);

    for (const path of [`/v2/batch/scrape/${first.body.id}`, `/v2/batch/scrape/${second.body.id}`]) {
      expect(await finished(team.api, path)).toMatchObject({ status: 'completed', completed: 6, creditsUsed: 6 });
    }
    expect(await finished(team.api, `/v2/crawl/${crawl.body.id}`)).toMatchObject({ status: 'completed', completed: 5 });
    expect(site.peakInFlight()).toBe(2);
    expect(await team.sdk.getConcurrency()).toEqual({ concurrency: 0, maxConcurrency: 2 });
    const idle = await team.sdk.getQueueStatus();
    expect(idle).toMatchObject({ jobsInQueue: 0, activeJobsInQueue: 0, waitingJobsInQueue: 0 });
    expect(Date.parse(idle.mostRecentSuccess!)).toBeGreaterThan(Date.now() - 60_000);
  });
});

describe('idempotency', () => {
  it('answers 409 when a batch reuses an x-idempotency-key', async () => {
    const team = await newTeam('idem-team');
    const headers = { 'x-idempotency-key': crypto.randomUUID() };
    const body = { urls: [site.url('/p/idem')] };
    expect((await team.api('/v2/batch/scrape', { body, headers })).status).toBe(200);
    const again = await team.api('/v2/batch/scrape', { body, headers });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ success: false, error: 'Idempotency key already used' });
  });
});

describe('usage endpoints through the official SDK', () => {
  it('serves credit, token, concurrency and queue figures to the v2 and v1 clients', async () => {
    const team = await newTeam('usage-team', ['--credits', '50', '--tokens', '900', '--concurrency', '4']);
    await team.api('/v2/scrape', { body: { url: site.url('/p/usage') } });
    const second = await createKeyWithCli(databaseUrl, 'usage-team');
    await apiClient(apiUrl, second)('/v2/scrape', { body: { url: site.url('/p/usage-2') } });
    await apiClient(apiUrl, second)('/v2/scrape', { body: { url: site.url('/p/usage-3') } });

    const credit = await team.sdk.getCreditUsage();
    expect(credit).toMatchObject({ remainingCredits: 47, planCredits: 50 });
    const start = new Date(credit.billingPeriodStart!);
    expect(start.getUTCDate()).toBe(1);
    expect(start.getTime()).toBeLessThanOrEqual(Date.now());
    expect(new Date(credit.billingPeriodEnd!).getTime()).toBeGreaterThan(Date.now());
    expect(await team.sdk.getTokenUsage()).toMatchObject({ remainingTokens: 900, planTokens: 900 });
    expect(await team.sdk.getConcurrency()).toEqual({ concurrency: 0, maxConcurrency: 4 });
    expect(await team.sdk.getQueueStatus()).toMatchObject({ success: true, jobsInQueue: 0, maxConcurrency: 4 });

    const history = await team.sdk.getCreditUsageHistorical();
    expect(history.periods).toEqual([
      { startDate: credit.billingPeriodStart, endDate: credit.billingPeriodEnd, creditsUsed: 3 },
    ]);
    const byKey = await team.sdk.getCreditUsageHistorical(true);
    expect(byKey.periods.map((p) => [p.apiKey, p.creditsUsed]).sort()).toEqual(
      [
        [team.key.slice(0, 11), 1],
        [second.slice(0, 11), 2],
      ].sort(),
    );
    expect((await team.sdk.getTokenUsageHistorical()).periods[0]).toMatchObject({ tokensUsed: 0 });

    const v1 = team.sdk.v1;
    expect(await v1.getCreditUsage()).toMatchObject({ success: true, data: { remaining_credits: 47, plan_credits: 50 } });
    expect(await v1.getTokenUsage()).toMatchObject({ success: true, data: { remaining_tokens: 900 } });
    expect(await v1.getQueueStatus()).toMatchObject({ success: true, maxConcurrency: 4 });
    expect((await v1.getCreditUsageHistorical(true)) as { periods: unknown[] }).toMatchObject({ success: true });
    expect((await team.api('/v1/concurrency-check')).body).toEqual({ success: true, concurrency: 0, maxConcurrency: 4 });
  });
});

describe('isolation between teams', () => {
  it("answers 404 on every job endpoint for another team's jobs, and leaves them untouched", async () => {
    const owner = await newTeam('iso-owner');
    const other = await newTeam('iso-other');
    const crawl = await owner.api('/v2/crawl', { body: { url: site.url('/?n=2') } });
    const batch = await owner.api('/v2/batch/scrape', { body: { urls: [site.url('/p/iso')] } });
    const scrape = await owner.api('/v2/scrape', { body: { url: site.url('/p/iso-scrape') } });
    await finished(owner.api, `/v2/crawl/${crawl.body.id}`);
    await finished(owner.api, `/v2/batch/scrape/${batch.body.id}`);

    const probes: [string, string][] = [];
    for (const version of ['v1', 'v2']) {
      for (const path of [`/${version}/crawl/${crawl.body.id}`, `/${version}/batch/scrape/${batch.body.id}`]) {
        probes.push(['GET', path], ['GET', `${path}/errors`], ['DELETE', path]);
      }
    }
    probes.push(['GET', `/v2/scrape/${scrape.body.data.metadata.scrapeId}`]);
    for (const [method, path] of probes) {
      const res = await other.api(path, { method });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.success, `${method} ${path}`).toBe(false);
    }
    for (const path of [`/v2/crawl/${crawl.body.id}`, `/v2/batch/scrape/${batch.body.id}`]) {
      const closed = await watch(path, other.key);
      expect(closed.code).toBe(1008);
      expect(JSON.parse(closed.reason)).toEqual({ type: 'error', error: 'Job not found' });
      expect(closed.messages).toEqual([]);
    }
    const listed = await other.api('/v2/crawl/active');
    expect(listed.body.crawls).toEqual([]);

    // The owner still sees its jobs, completed: the other team's DELETEs did nothing.
    expect((await owner.api(`/v2/crawl/${crawl.body.id}`)).body.status).toBe('completed');
    expect((await owner.api(`/v2/batch/scrape/${batch.body.id}`)).body.status).toBe('completed');
    expect((await owner.api(`/v2/scrape/${scrape.body.data.metadata.scrapeId}`)).status).toBe(200);
  });
});

describe('two API processes on one database', () => {
  let second: Stack;
  beforeAll(async () => {
    second = await startStack({
      databaseUrl,
      temporal: { address: temporalAddress },
      apiPort: await findFreePort(),
      workerCount: 0,
      env: E2E_ENV,
      log: () => undefined,
    });
  });
  afterAll(async () => {
    await second?.stop();
  });

  it('stops a revoked key at once on every API process', async () => {
    const team = await newTeam('revoke-team');
    const apis = [team.api, apiClient(second.apiUrl, team.key)];
    for (const api of apis) expect((await api('/v2/team/credit-usage')).status).toBe(200);
    await runAdmin(databaseUrl, ['keys', 'revoke', team.key.slice(0, 11)]);
    for (const api of apis) {
      const res = await api('/v2/team/credit-usage');
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('Unauthorized: Invalid token');
    }
  });

  it('counts one rate limit across both processes', async () => {
    const team = await newTeam('shared-rpm-team', ['--scrape-rpm', '4']);
    const apis = [team.api, apiClient(second.apiUrl, team.key)];
    await awayFromWindowEdge();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      statuses.push((await apis[i % 2]!('/v2/scrape', { body: { url: site.url(`/p/shared-${i}`) } })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
  });
});

describe('under load', () => {
  it('answers 200 scrapes at once from one team with low limits: only successes, 402 and 429; the ledger matches', async () => {
    const team = await newTeam('load-team', ['--scrape-rpm', '150', '--credits', '60', '--concurrency', '3']);
    await awayFromWindowEdge(40);
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, i) => team.api('/v2/scrape', { body: { url: site.url(`/p/load-${i}?ms=50`) } })),
    );
    const byOutcome = new Map<string, number>();
    for (const r of responses) {
      const outcome = r.status === 200 ? '200' : `${r.status} ${r.body.code}`;
      byOutcome.set(outcome, (byOutcome.get(outcome) ?? 0) + 1);
    }
    const allowed = new Set(['200', '402 INSUFFICIENT_CREDITS', '429 RATE_LIMITED', '429 CONCURRENCY_LIMITED']);
    expect([...byOutcome.keys()].filter((o) => !allowed.has(o)), JSON.stringify([...byOutcome])).toEqual([]);
    // Exactly the requests past 150 in this window were rate limited.
    expect(byOutcome.get('429 RATE_LIMITED')).toBe(50);

    const succeeded = byOutcome.get('200') ?? 0;
    expect(succeeded).toBeGreaterThan(0);
    expect(succeeded).toBeLessThanOrEqual(60);
    expect(await ledgerSum({ teamId: team.teamId })).toBe(succeeded);
    const used = (await readPeriodUsage(db, team.teamId)).used;
    expect(used).toBe(succeeded);
    expect((await team.sdk.getCreditUsage()).remainingCredits).toBe(60 - succeeded);
    for (const r of responses.filter((x) => x.status === 200)) expect(r.body.data.metadata.creditsUsed).toBe(1);

    // Nothing leaked or went below zero: no slot is still held, and the counter saw every request.
    expect(await team.sdk.getConcurrency()).toEqual({ concurrency: 0, maxConcurrency: 3 });
    const counted = await db
      .selectFrom('rate_limit_counters')
      .select((eb) => eb.fn.sum<number>('count').as('n'))
      .where('team_id', '=', team.teamId)
      .where('endpoint', '=', 'scrape')
      .executeTakeFirstOrThrow();
    expect(Number(counted.n)).toBe(200);
  });
});

/** Opens the job watcher websocket as the SDK does (key as subprotocol) and waits for the close. */
function watch(path: string, key: string): Promise<{ code: number; reason: string; messages: string[] }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(apiUrl.replace(/^http/, 'ws') + path, [key]);
    const messages: string[] = [];
    ws.on('message', (data) => messages.push(String(data)));
    ws.on('close', (code, reason) => resolve({ code, reason: String(reason), messages }));
    ws.on('error', reject);
  });
}
