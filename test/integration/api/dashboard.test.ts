/**
 * The dashboard over the real app and a real database, without Temporal: where it is served
 * (DASHBOARD_PATH), the AUTH=none banner and session, CSRF on that session, escaping of what
 * teams name themselves, and the account rules it shares with the admin CLI.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountError, changePlan, createKey, createTeam, readStanding } from '../../../api/accounts.js';
import { loadConfig } from '../../../lib/config.js';
import { serveApp, type InProcessApp } from '../../helpers/in-process-app.js';
import { createTestDb, type TestDb } from '../../helpers/test-db.js';

let t: TestDb;
const apps: InProcessApp[] = [];

beforeAll(async () => {
  t = await createTestDb('trawl_dashboard');
});
afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
  await t.drop();
});

async function app(env: Record<string, string>): Promise<string> {
  const served = await serveApp({ db: t.db, config: loadConfig({ DATABASE_URL: t.url, ...env }) });
  apps.push(served);
  return served.base;
}

/** GETs `url` with the cookie jar, following redirects by hand so cookies set on the way are kept. */
async function browse(url: string, jar: Map<string, string>): Promise<Response> {
  for (let hops = 0; hops < 5; hops++) {
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const [k, v] = pair!.split('=');
      jar.set(k!, v!);
    }
    if (res.status !== 303 && res.status !== 302) return res;
    url = new URL(res.headers.get('location')!, url).toString();
  }
  throw new Error('too many redirects');
}

/** A monitor row as the API would store it, with `fields` over a plain hourly one. */
async function insertTestMonitor(teamId: string, fields: { name: string; schedule: Record<string, unknown>; targets: unknown[] }): Promise<string> {
  const { randomUUID } = await import('node:crypto');
  const { insertMonitor } = await import('../../../db/repositories/monitors.js');
  const id = randomUUID();
  await insertMonitor(t.db, {
    id,
    team_id: teamId,
    name: fields.name,
    status: 'active',
    schedule: JSON.stringify(fields.schedule),
    targets: JSON.stringify(fields.targets),
    webhook: null,
    notification: null,
    retention_days: 30,
    goal: null,
    judge_enabled: false,
    estimated_credits_per_month: 0,
    schedule_id: `monitor-${id}`,
    current_check_id: null,
    last_run_at: null,
    last_check_summary: null,
    updated_at: new Date(),
  }, 10);
  return id;
}

describe('where the dashboard is served', () => {
  it('follows DASHBOARD_PATH, and serves nothing with off', async () => {
    const moved = await app({ DASHBOARD_PATH: '/console' });
    expect((await fetch(`${moved}/console/sign-in`)).status).toBe(200);
    expect((await fetch(`${moved}/console/assets/dashboard.css`)).headers.get('content-type')).toMatch(/text\/css/);
    expect((await fetch(`${moved}/dashboard/sign-in`)).status).toBe(404);
    const off = await app({ DASHBOARD_PATH: 'off' });
    expect((await fetch(`${off}/dashboard/sign-in`)).status).toBe(404);
    expect(() => loadConfig({ DASHBOARD_PATH: 'no-slash' })).toThrow(/DASHBOARD_PATH/);
  });

  it('sends a policy that allows no other origin', async () => {
    const base = await app({});
    const res = await fetch(`${base}/dashboard/sign-in`);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(await res.text()).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/);
  });
});

describe('the sign-in form', () => {
  it('takes a stray cookie that does not decode as no cookie, not a 500', async () => {
    const base = await app({});
    for (const path of ['/dashboard/', '/dashboard/sign-in', '/dashboard/teams']) {
      const res = await fetch(`${base}${path}`, { redirect: 'manual', headers: { cookie: 'trawl_session=%E0%A4%A; trawl_sign_in=%' } });
      expect(res.status, path).toBeLessThan(400);
    }
    const post = await fetch(`${base}/dashboard/sign-in`, {
      method: 'POST',
      headers: { cookie: 'trawl_sign_in=%E0%A4%A', 'content-type': 'application/x-www-form-urlencoded' },
      body: '_csrf=x&key=fc-x',
    });
    expect(post.status).toBe(403);
  });

  it('accepts only the token the server signed for its cookie, never a pair the client chose', async () => {
    const base = await app({});
    const team = await createTeam(t.db, `signin-${Date.now()}`);
    const { key } = await createKey(t.db, team.id, 'admin');
    const signIn = (cookie: string, csrf: string) =>
      fetch(`${base}/dashboard/sign-in`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: `trawl_sign_in=${cookie}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: csrf, key }).toString(),
      });
    expect((await signIn('x', 'x')).status).toBe(403);
    const jar = new Map<string, string>();
    const form = await (await browse(`${base}/dashboard/sign-in`, jar)).text();
    const token = /name="_csrf" value="([^"]+)"/.exec(form)![1]!;
    expect(token).not.toBe(jar.get('trawl_sign_in'));
    expect((await signIn(jar.get('trawl_sign_in')!, jar.get('trawl_sign_in')!)).status).toBe(403);
    const good = await signIn(jar.get('trawl_sign_in')!, token);
    expect(good.status).toBe(303);
    expect(good.headers.get('location')).toBe('/dashboard/');
  });
});

describe('AUTH=none', () => {
  it('opens the operator dashboard with a banner saying auth is off, and still checks CSRF', async () => {
    const base = await app({ AUTH: 'none' });
    await createTeam(t.db, '<b>bold</b>');
    const jar = new Map<string, string>();
    const res = await browse(`${base}/dashboard/`, jar);
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain('Authentication is off (AUTH=none)');
    expect(page).toContain('Create team');
    // A team's name is text, never markup.
    expect(page).toContain('&#60;b&#62;bold&#60;/b&#62;');
    expect(page).not.toContain('<b>bold</b>');
    const post = await fetch(`${base}/dashboard/teams`, {
      method: 'POST',
      body: new URLSearchParams({ name: 'via-csrf' }),
      headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
      redirect: 'manual',
    });
    expect(post.status).toBe(403);
  });

  it('without a session, sends a key-based dashboard to sign in', async () => {
    const base = await app({});
    const res = await fetch(`${base}/dashboard/teams`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/dashboard/sign-in');
  });
});

describe('accounts, shared with the admin CLI', () => {
  it('changes only the plan fields given and names the field it refuses', async () => {
    const team = await createTeam(t.db, 'plans');
    await changePlan(t.db, team.id, { credits: '50', 'scrape-rpm': '7', tokens: '' });
    const { plan } = await readStanding(t.db, team.id);
    expect(plan.monthlyCredits).toBe(50);
    expect(plan.rateLimits.scrape).toBe(7);
    expect(plan.monthlyTokens).toBe(100_000_000);
    await expect(changePlan(t.db, team.id, { concurrency: '0' })).rejects.toThrow('--concurrency must be a whole number from 1 to 1000');
    await expect(changePlan(t.db, team.id, { zdr: 'maybe' })).rejects.toThrow('--zdr must be true or false');
    await expect(createKey(t.db, team.id, ['scrape', 'nope'])).rejects.toBeInstanceOf(AccountError);
    expect((await createKey(t.db, team.id, ['scrape', 'admin'])).scopes).toEqual(['scrape', 'admin']);
    expect((await createKey(t.db, team.id, '')).scopes).toBeNull();
    await expect(createTeam(t.db, 'has space')).rejects.toThrow(/no spaces/);
  });
});

describe("an agent run's page", () => {
  it('draws its trace as a timeline: one point per event, placed by time, with tool and outcome', async () => {
    const { jobPage } = await import('../../../api/dashboard/pages/jobs.js');
    const at = (ms: number) => new Date(Date.UTC(2026, 10, 26, 12, 0, 0, ms));
    const trace = [
      { agent_key: '', seq: 1, type: 'run.started', payload: {}, occurred_at: at(0) },
      { agent_key: '', seq: 2, type: 'tool_call.started', payload: { toolName: 'scrape' }, occurred_at: at(1000) },
      { agent_key: '2', seq: 1, type: 'agent.started', payload: {}, occurred_at: at(1500) },
      { agent_key: '', seq: 3, type: 'run.finished', payload: { outcome: 'completed' }, occurred_at: at(4000) },
    ];
    const job = { id: 'a1', kind: 'agent', status: 'completed', workflow_id: 'agent-a1', created_at: at(0), completed_at: at(4000) } as never;
    const out = jobPage('/dashboard', { job, teamName: 't', totals: { pages: 0, credits: 3 }, temporalUrl: 'http://ui/x', trace }).text;
    const cx = [...out.matchAll(/<circle cx="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(cx).toHaveLength(4);
    expect(cx[0]).toBeCloseTo(6);
    expect(cx[3]).toBeCloseTo(594);
    expect(cx[1]! / cx[3]!).toBeCloseTo((1000 / 4000) * (588 / 594) + 6 / 594, 2);
    expect(out).toContain('<strong>tool_call.started</strong> scrape');
    expect(out).toContain('sub-agent 2');
    expect(out).toContain('+4.0 s');
    expect(out).toContain('<strong>run.finished</strong> completed');
  });
});

describe('the job list', () => {
  it("lists monitors' checks with the jobs, and filters them by kind", async () => {
    const { randomUUID } = await import('node:crypto');
    const { insertQueuedCheck } = await import('../../../db/repositories/monitors.js');
    const { listJobs } = await import('../../../db/repositories/job-list.js');
    const team = await createTeam(t.db, 'monitoring');
    const monitorId = await insertTestMonitor(team.id, { name: 'pricing page', schedule: { cron: '0 * * * *', timezone: 'UTC' }, targets: [] });
    const checkId = randomUUID();
    await insertQueuedCheck(t.db, { id: checkId, monitorId, teamId: team.id, workflowId: `monitor-check-${checkId}`, estimatedCredits: 1, expiresAt: new Date(Date.now() + 3_600_000) });
    const all = await listJobs(t.db, { teamIds: [team.id], offset: 0, limit: 10 });
    expect(all.jobs).toEqual([expect.objectContaining({ id: checkId, kind: 'monitor', status: 'queued', url: 'pricing page', workflowId: `monitor-check-${checkId}` })]);
    expect((await listJobs(t.db, { teamIds: [team.id], kind: 'monitor', status: 'scraping', offset: 0, limit: 10 })).jobs).toHaveLength(1);
    expect((await listJobs(t.db, { teamIds: [team.id], kind: 'crawl', offset: 0, limit: 10 })).jobs).toHaveLength(0);
    expect((await listJobs(t.db, { teamIds: [team.id], status: 'completed', offset: 0, limit: 10 })).jobs).toHaveLength(0);
    const other = await createTeam(t.db, 'not-monitoring');
    expect((await listJobs(t.db, { teamIds: [other.id], offset: 0, limit: 10 })).jobs).toHaveLength(0);
  });

  it("shows an adaptive monitor on its team's page, and each URL's pace and evidence on its own", async () => {
    const { randomUUID } = await import('node:crypto');
    const { beginCheck, finishCheck, insertCheckPages, insertQueuedCheck } = await import('../../../db/repositories/monitors.js');
    const base = await app({ AUTH: 'none' });
    const team = await createTeam(t.db, 'adaptive-team');
    const url = 'https://shop.example/terms';
    const monitorId = await insertTestMonitor(team.id, {
      name: 'terms watch',
      schedule: { cron: '*/5 * * * *', timezone: 'UTC', adaptive: { minIntervalMs: 300_000, maxIntervalMs: 86_400_000 } },
      targets: [{ target: { id: 'pages', type: 'scrape', urls: [url] }, plan: { kind: 'batch_scrape', pages: [{ url, urlKey: url }], scrapeOptions: {} } }],
    });
    // Two checks that found the page unchanged: due again two ticks after the last.
    for (const status of ['new', 'same'] as const) {
      const checkId = randomUUID();
      const expiresAt = new Date(Date.now() + 3_600_000);
      await insertQueuedCheck(t.db, { id: checkId, monitorId, teamId: team.id, workflowId: `w-${checkId}`, estimatedCredits: 1, expiresAt });
      await beginCheck(t.db, { checkId, monitorId, trigger: 'manual', workflowId: `w-${checkId}`, estimatedCredits: 1, expiresAt, outOfCredits: false });
      const page = { id: randomUUID(), targetId: 'pages', url, urlKey: url, status, previousScrapeId: null, currentScrapeId: null, statusCode: 200, error: null, diff: null, judgment: null };
      await insertCheckPages(t.db, checkId, monitorId, [page]);
      const summary = { totalPages: 1, same: status === 'same' ? 1 : 0, new: status === 'new' ? 1 : 0, changed: 0, removed: 0, error: 0 };
      await finishCheck(t.db, { checkId, monitorId, status: 'completed', summary, actualCredits: 1, judged: false, error: null });
    }
    const jar = new Map<string, string>();
    const teamPage = await (await browse(`${base}/dashboard/teams/${team.id}`, jar)).text();
    expect(teamPage).toContain(`href="/dashboard/monitors/${monitorId}"`);
    expect(teamPage).toContain('adaptive, every 5 min to 24 h');
    const res = await browse(`${base}/dashboard/monitors/${monitorId}`, jar);
    expect(res.status).toBe(200);
    const row = (await res.text()).split('data-testid="adaptive-urls"')[1]!;
    expect(row).toMatch(new RegExp(`<td>${url}</td><td>10 min</td><td>[0-9.]+</td><td>2</td><td>0</td>`));
    expect(row).toContain('skips it');
    expect((await browse(`${base}/dashboard/monitors/${randomUUID()}`, jar)).status).toBe(404);
  });
});
