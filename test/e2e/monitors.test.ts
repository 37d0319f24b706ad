/**
 * Monitors on the real stack: CRUD with the Temporal Schedule behind each monitor, checks started
 * through /run and through the Schedule itself, scrape targets (changed, same by 304, same despite
 * noise, removed), crawl targets (new and removed pages), overlap and no-credit skips, signed
 * monitor.page and monitor.check.completed webhooks, and the 400s and 404s of the routes.
 */
import { createHmac } from 'node:crypto';
import { Client, Connection, ScheduleNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../db/connect.js';
import { setWebhookSecret } from '../../db/repositories/webhook-secrets.js';
import { apiClient } from '../helpers/api-client.js';
import { startMonitorSite, type MonitorSite } from '../helpers/monitor-site.js';
import { createKeyWithCli, runAdmin } from '../helpers/run-admin.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { e2eContext } from './context.js';

const { apiUrl, databaseUrl, temporalAddress } = e2eContext();
let db: Db;
let connection: Connection;
let temporal: Client;
let site: MonitorSite;
let hooks: WebhookReceiver;
let api: ReturnType<typeof apiClient>;
let other: ReturnType<typeof apiClient>;

const SECRET = 'monitor-secret';

beforeAll(async () => {
  db = createDb(databaseUrl, { maxConnections: 2 });
  connection = await Connection.connect({ address: temporalAddress });
  temporal = new Client({ connection });
  [site, hooks] = await Promise.all([startMonitorSite(), startWebhookReceiver()]);
  const [key, otherKey] = await Promise.all([createKeyWithCli(databaseUrl, 'monitor-team'), createKeyWithCli(databaseUrl, 'monitor-other-team')]);
  api = apiClient(apiUrl, key);
  other = apiClient(apiUrl, otherKey);
  await setWebhookSecret(db, { name: 'monitor-team' }, SECRET);
}, 60_000);

afterAll(async () => {
  await Promise.all([site?.close(), hooks?.close()]);
  await connection?.close();
  await db?.destroy();
});

async function createMonitor(body: Record<string, unknown>, client = api): Promise<any> {
  const res = await client('/v2/monitor', { body: { name: 'test', schedule: { text: 'every 30 minutes' }, ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

/** Starts a check through /run and waits for it to end; returns the check with all its pages. */
async function runCheck(monitorId: string, client = api): Promise<any> {
  const run = await client(`/v2/monitor/${monitorId}/run`, { method: 'POST' });
  expect(run.status, JSON.stringify(run.body)).toBe(200);
  expect(run.body.data.status).toBe('queued');
  return waitForCheck(monitorId, run.body.data.id, client);
}

async function waitForCheck(monitorId: string, checkId: string, client = api): Promise<any> {
  const giveUp = Date.now() + 60_000;
  for (;;) {
    const res = await client(`/v2/monitor/${monitorId}/checks/${checkId}?limit=1000`);
    expect(res.status).toBe(200);
    if (!['queued', 'running'].includes(res.body.data.status)) return res.body.data;
    if (Date.now() > giveUp) throw new Error(`check ${checkId} still ${res.body.data.status}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const byUrl = (check: any) => Object.fromEntries(check.pages.map((p: any) => [new URL(p.url).pathname, p]));

describe('monitor CRUD and its Temporal Schedule', () => {
  it('creates, reads, lists, pauses, updates and deletes, acting on the Schedule each time', async () => {
    site.set('/crud', '<p>A page to watch.</p>');
    const created = await createMonitor({
      name: 'Blog monitor',
      schedule: { text: 'every 30 minutes', timezone: 'Europe/Paris' },
      targets: [{ type: 'scrape', urls: [site.url('/crud')] }],
      goal: 'Tell me when a post is published',
    });
    expect(created).toMatchObject({
      name: 'Blog monitor',
      status: 'active',
      schedule: { cron: '*/30 * * * *', timezone: 'Europe/Paris', text: 'every 30 minutes' },
      retentionDays: 30,
      goal: 'Tell me when a post is published',
      // The shared stack has no model: the goal is kept, and the answer says it is not judged.
      judgeEnabled: false,
      warning: expect.stringContaining('not judged'),
      targets: [{ type: 'scrape', urls: [site.url('/crud')], id: expect.any(String) }],
    });
    // 2 runs an hour for 30 days, one page each.
    expect(created.estimatedCreditsPerMonth).toBe(1440);
    expect(Date.parse(created.nextRunAt)).toBeGreaterThan(Date.now());

    const handle = temporal.schedule.getHandle(created.scheduleId);
    const described = await handle.describe();
    expect(described.spec.timezone).toBe('Europe/Paris');
    expect(described.state.paused).toBe(false);
    expect(described.action.type).toBe('startWorkflow');

    expect((await api(`/v2/monitor/${created.id}`)).body.data.id).toBe(created.id);
    const listed = await api('/v2/monitor?limit=100');
    expect(listed.body.data.map((m: any) => m.id)).toContain(created.id);
    expect(listed.body.pagination).toMatchObject({ limit: 100, offset: 0 });

    const paused = await api(`/v2/monitor/${created.id}`, { method: 'PATCH', body: { status: 'paused', name: 'Renamed' } });
    expect(paused.status).toBe(200);
    expect(paused.body.data).toMatchObject({ status: 'paused', name: 'Renamed', nextRunAt: null });
    expect((await handle.describe()).state.paused).toBe(true);

    const updated = await api(`/v2/monitor/${created.id}`, { method: 'PATCH', body: { status: 'active', schedule: { cron: '0 9 * * *', timezone: 'UTC' } } });
    expect(updated.body.data).toMatchObject({ status: 'active', schedule: { cron: '0 9 * * *', timezone: 'UTC' }, estimatedCreditsPerMonth: 30 });
    const after = await handle.describe();
    expect(after.state.paused).toBe(false);
    expect(after.spec.timezone).toBe('UTC');
    expect(after.info.nextActionTimes[0]!.getUTCHours()).toBe(9);

    const deleted = await api(`/v2/monitor/${created.id}`, { method: 'DELETE' });
    expect(deleted.body).toEqual({ success: true, data: { id: created.id, status: 'deleted' } });
    expect((await api(`/v2/monitor/${created.id}`)).status).toBe(404);
    await expect(handle.describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);
  });

  it("answers 404 for another team's monitor on every route", async () => {
    site.set('/mine', '<p>Mine.</p>');
    const mine = await createMonitor({ targets: [{ type: 'scrape', urls: [site.url('/mine')] }] });
    const check = await runCheck(mine.id);
    for (const [path, method] of [
      [`/v2/monitor/${mine.id}`, 'GET'],
      [`/v2/monitor/${mine.id}`, 'PATCH'],
      [`/v2/monitor/${mine.id}`, 'DELETE'],
      [`/v2/monitor/${mine.id}/run`, 'POST'],
      [`/v2/monitor/${mine.id}/checks`, 'GET'],
      [`/v2/monitor/${mine.id}/checks/${check.id}`, 'GET'],
    ] as const) {
      const res = await other(path, { method, ...(method === 'PATCH' && { body: { name: 'x' } }) });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body).toMatchObject({ success: false, code: 'NOT_FOUND' });
    }
    expect((await other('/v2/monitor')).body.data.map((m: any) => m.id)).not.toContain(mine.id);
    expect((await api('/v2/monitor/not-a-uuid')).status).toBe(404);
    await api(`/v2/monitor/${mine.id}`, { method: 'DELETE' });
  });

  it.each([
    ['no targets', { targets: [] }, 'targets'],
    ['a schedule under 5 minutes', { schedule: { cron: '*/2 * * * *' }, targets: [{ type: 'scrape', urls: ['https://example.com'] }] }, 'minimum interval'],
    ['cron and text together', { schedule: { cron: '0 * * * *', text: 'hourly' }, targets: [{ type: 'scrape', urls: ['https://example.com'] }] }, 'exactly one'],
    ['unknown schedule text', { schedule: { text: 'when the moon is full' }, targets: [{ type: 'scrape', urls: ['https://example.com'] }] }, 'Unrecognised'],
    ['an unknown target type', { targets: [{ type: 'watch', urls: ['https://example.com'] }] }, 'targets'],
    ['a bad crawl option', { targets: [{ type: 'crawl', url: 'https://example.com', crawlOptions: { limit: 0 } }] }, 'limit'],
    ['email without SMTP', { targets: [{ type: 'scrape', urls: ['https://example.com'] }], notification: { email: { recipients: ['a@example.com'] } } }, 'SMTP'],
    ['a search target without queries', { targets: [{ type: 'search', queries: [] }] }, 'queries'],
    ['an unknown webhook event', { targets: [{ type: 'scrape', urls: ['https://example.com'] }], webhook: { url: 'https://example.com/h', events: ['crawl.page'] } }, 'events'],
  ])('refuses %s with 400 and details', async (_name, body, message) => {
    const res = await api('/v2/monitor', { body: { name: 'bad', schedule: { text: 'hourly' }, ...body } });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.error).toContain(message);
    expect(res.body.details).toBeDefined();
  });

  it('refuses bad PATCH bodies and bad list queries with 400', async () => {
    site.set('/patch', '<p>Patch me.</p>');
    const m = await createMonitor({ targets: [{ type: 'scrape', urls: [site.url('/patch')] }] });
    const bad = await api(`/v2/monitor/${m.id}`, { method: 'PATCH', body: { status: 'sleeping' } });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toBeDefined();
    expect((await api(`/v2/monitor/${m.id}/checks?limit=0`)).status).toBe(400);
    await api(`/v2/monitor/${m.id}`, { method: 'DELETE' });
  });
});

describe('checks of a scrape target', () => {
  it('finds new, then changed, same (by 304 and despite noise) and removed pages, with signed webhooks', async () => {
    site.set('/static', '<h1>Static</h1><p>This page never changes between checks.</p>');
    site.set('/edited', '<h1>Pricing</h1><p>The plan costs 10 euros a month.</p>');
    site.set('/noisy', '<h1>News</h1><p>The regulator published its winter tariff review.</p>{{noise}}');
    site.set('/gone', '<h1>Old</h1><p>This page will be deleted.</p>');
    const urls = ['/static', '/edited', '/noisy', '/gone'].map((p) => site.url(p));
    const monitor = await createMonitor({
      targets: [{ type: 'scrape', urls }],
      webhook: { url: hooks.url, metadata: { run: 'scrape-target' } },
    });

    const first = await runCheck(monitor.id);
    expect(first).toMatchObject({ status: 'completed', trigger: 'manual', summary: { totalPages: 4, new: 4, same: 0, changed: 0, removed: 0, error: 0 } });
    expect(first.actualCredits).toBe(4);
    expect(first.targetResults[0]).toMatchObject({ type: 'scrape', expectedJobs: [expect.any(String)] });

    site.set('/edited', '<h1>Pricing</h1><p>The plan costs 12 euros a month.</p>');
    site.set('/gone', undefined);
    const notModifiedBefore = site.notModifiedCount();
    const second = await runCheck(monitor.id);
    expect(second.summary).toEqual({ totalPages: 4, new: 0, same: 2, changed: 1, removed: 1, error: 0 });
    const pages = byUrl(second);
    expect(pages['/edited']).toMatchObject({ status: 'changed', previousScrapeId: expect.any(String), currentScrapeId: expect.any(String) });
    expect(pages['/edited'].diff.text).toContain('-The plan costs 10 euros a month.');
    expect(pages['/edited'].diff.text).toContain('+The plan costs 12 euros a month.');
    expect(pages['/edited'].previousScrapeId).toBe(byUrl(first)['/edited'].currentScrapeId);
    // Answered 304 to the check's If-None-Match: same, and nothing converted.
    expect(pages['/static']).toMatchObject({ status: 'same', statusCode: 304 });
    expect(site.notModifiedCount()).toBe(notModifiedBefore + 1);
    // Its timestamp, counters, ad and session token changed; its text did not.
    expect(pages['/noisy']).toMatchObject({ status: 'same', statusCode: 200 });
    expect(pages['/gone']).toMatchObject({ status: 'removed', statusCode: 404 });

    const monitorNow = (await api(`/v2/monitor/${monitor.id}`)).body.data;
    expect(monitorNow.lastCheckSummary).toEqual(second.summary);
    expect(monitorNow.lastRunAt).not.toBeNull();
    const checks = (await api(`/v2/monitor/${monitor.id}/checks`)).body.data;
    expect(checks.map((c: any) => c.id)).toEqual([second.id, first.id]);
    const onlyChanged = await api(`/v2/monitor/${monitor.id}/checks/${second.id}?status=changed`);
    expect(onlyChanged.body.data.pages.map((p: any) => p.status)).toEqual(['changed']);
    const paged = await api(`/v2/monitor/${monitor.id}/checks/${second.id}?limit=3`);
    expect(paged.body.data.pages).toHaveLength(3);
    expect(paged.body.next).toContain('skip=3');

    // Webhooks: every page of the first check (all new), then the changed and removed ones.
    const completed = await waitForDelivery((d) => d.body.type === 'monitor.check.completed' && d.body.id === second.id);
    expect(completed.body).toMatchObject({
      success: true,
      metadata: { run: 'scrape-target' },
      data: [{ monitorId: monitor.id, checkId: second.id, status: 'completed', summary: second.summary }],
    });
    const pageEvents = hooks.deliveries.filter((d) => d.body.type === 'monitor.page' && d.body.id === second.id);
    expect(pageEvents.map((d) => d.body.data[0].status).sort()).toEqual(['changed', 'removed']);
    const changedEvent = pageEvents.find((d) => d.body.data[0].status === 'changed')!;
    expect(changedEvent.body.data[0]).toMatchObject({ monitorId: monitor.id, checkId: second.id, url: site.url('/edited'), isMeaningful: null });
    expect(changedEvent.body.data[0].diff.text).toContain('+The plan costs 12 euros a month.');
    for (const d of [completed, ...pageEvents]) {
      expect(d.headers['x-firecrawl-signature']).toBe(`sha256=${createHmac('sha256', SECRET).update(d.raw).digest('hex')}`);
    }
    await api(`/v2/monitor/${monitor.id}`, { method: 'DELETE' });
  });

  it('reports a page whose only changes are noise as same by default, and as changed with notify "any" (Trawl)', async () => {
    site.set('/noisy-any', '<h1>News</h1><p>The regulator published its spring tariff review.</p>{{noise}}');
    const urls = [site.url('/noisy-any')];
    const monitor = await createMonitor({
      targets: [
        { type: 'scrape', urls, id: 'substantive' },
        { type: 'scrape', urls, id: 'any', notify: 'any' },
      ],
    });
    expect(monitor.targets.map((t: any) => t.notify)).toEqual([undefined, 'any']);
    await runCheck(monitor.id);
    const second = await runCheck(monitor.id);
    const statuses = Object.fromEntries(second.pages.map((p: any) => [p.targetId, p.status]));
    expect(statuses).toEqual({ substantive: 'same', any: 'changed' });
    const typo = await api('/v2/monitor', { body: { name: 'typo', schedule: { text: 'hourly' }, targets: [{ type: 'scrape', urls, notify: 'some' }] } });
    expect(typo.status).toBe(400);
    expect(JSON.stringify(typo.body)).toContain('notify');
    await api(`/v2/monitor/${monitor.id}`, { method: 'DELETE' });
  });

  it('checks each URL of an adaptive monitor at its own pace: a stable page 5× less often, every change of a volatile one seen (Trawl)', async () => {
    site.set('/stable', '<h1>Terms</h1><p>These terms have not changed in years.</p>');
    const monitor = await createMonitor({
      schedule: { adaptive: { minIntervalMs: 300_000, maxIntervalMs: 86_400_000 } },
      targets: [{ type: 'scrape', urls: [site.url('/volatile'), site.url('/stable')], id: 'pages' }],
    });
    expect(monitor.schedule).toMatchObject({ cron: '*/5 * * * *', adaptive: { minIntervalMs: 300_000, maxIntervalMs: 86_400_000 } });
    const fetched = { volatile: 0, stable: 0 };
    for (let tick = 0; tick < 31; tick++) {
      site.set('/volatile', `<h1>Live</h1><p>Reading number ${tick} of the sensor.</p>`);
      const check = await runCheck(monitor.id);
      const pages = byUrl(check);
      // Credits only for the URLs the check fetched.
      expect(check.actualCredits).toBeLessThanOrEqual(Object.keys(pages).length);
      expect(pages['/volatile']?.status).toBe(tick === 0 ? 'new' : 'changed');
      if (pages['/stable']) fetched.stable += 1;
      fetched.volatile += 1;
    }
    expect(fetched).toEqual({ volatile: 31, stable: 5 });
    const read = (await api(`/v2/monitor/${monitor.id}`)).body.data;
    const stable = read.adaptive.urls.find((u: any) => u.url === site.url('/stable'));
    expect(stable).toMatchObject({ targetId: 'pages', checks: 5, changes: 0, intervalTicks: 16, estimatedIntervalMs: 16 * 300_000, dueAtNextCheck: true });
    expect(read.adaptive.urls.find((u: any) => u.url === site.url('/volatile'))).toMatchObject({ checks: 31, changes: 30, intervalTicks: 1 });
    await api(`/v2/monitor/${monitor.id}`, { method: 'DELETE' });
  }, 180_000);

  it('runs a check when its Schedule fires, recorded as scheduled', async () => {
    site.set('/scheduled', '<p>Checked by the Schedule.</p>');
    const monitor = await createMonitor({ targets: [{ type: 'scrape', urls: [site.url('/scheduled')] }] });
    await temporal.schedule.getHandle(monitor.scheduleId).trigger();
    const giveUp = Date.now() + 60_000;
    let checks: any[] = [];
    while (Date.now() < giveUp) {
      checks = (await api(`/v2/monitor/${monitor.id}/checks`)).body.data;
      if (checks.some((c) => c.status === 'completed')) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatchObject({ trigger: 'scheduled', status: 'completed', summary: { totalPages: 1, new: 1 } });
    expect(checks[0].workflowId).toMatch(new RegExp(`^${monitor.scheduleId}-check`));
    await api(`/v2/monitor/${monitor.id}`, { method: 'DELETE' });
  });
});

async function waitForDelivery(match: (d: WebhookReceiver['deliveries'][number]) => boolean) {
  const giveUp = Date.now() + 60_000;
  for (;;) {
    const found = hooks.deliveries.find(match);
    if (found) return found;
    if (Date.now() > giveUp) throw new Error(`no such webhook; got ${hooks.deliveries.map((d) => d.body.type).join(', ')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('checks of a crawl target', () => {
  it('reports pages the crawl finds for the first time as new and pages it no longer reaches as removed', async () => {
    const text = '<p>This paragraph gives the page enough text to be content.</p>';
    site.set('/docs/', `<h1>Docs</h1>${text}<a href="/docs/one">One</a> <a href="/docs/two">Two</a>`);
    site.set('/docs/one', `<h1>One</h1>${text}`);
    site.set('/docs/two', `<h1>Two</h1>${text}`);
    site.set('/docs/three', `<h1>Three</h1>${text}`);
    const monitor = await createMonitor({ targets: [{ type: 'crawl', url: site.url('/docs/'), crawlOptions: { limit: 10, sitemap: 'skip' } }] });

    const first = await runCheck(monitor.id);
    expect(first.summary).toMatchObject({ totalPages: 3, new: 3 });
    expect(first.targetResults[0]).toMatchObject({ type: 'crawl', crawlId: expect.any(String) });
    // The crawl is an ordinary crawl job of the team.
    expect((await api(`/v2/crawl/${first.targetResults[0].crawlId}`)).body).toMatchObject({ status: 'completed', total: 3 });

    site.set('/docs/', `<h1>Docs</h1>${text}<a href="/docs/one">One</a> <a href="/docs/three">Three</a>`);
    const second = await runCheck(monitor.id);
    const pages = byUrl(second);
    expect(pages['/docs/three'].status).toBe('new');
    expect(pages['/docs/two'].status).toBe('removed');
    expect(pages['/docs/one'].status).toBe('same');
    expect(pages['/docs/'].status).toBe('changed');
    expect(second.summary).toEqual({ totalPages: 4, same: 1, changed: 1, new: 1, removed: 1, error: 0 });
    await api(`/v2/monitor/${monitor.id}`, { method: 'DELETE' });
  });
});

describe('skipped checks', () => {
  it('records a check due while another runs as skipped_overlap', async () => {
    site.set('/slow', '<p>A slow page.</p>');
    site.slow('/slow', 4_000);
    const monitor = await createMonitor({ targets: [{ type: 'scrape', urls: [site.url('/slow')] }] });
    const first = await api(`/v2/monitor/${monitor.id}/run`, { method: 'POST' });
    // Wait until the first check holds the monitor, then ask for another.
    const giveUp = Date.now() + 30_000;
    while ((await api(`/v2/monitor/${monitor.id}`)).body.data.currentCheckId !== first.body.data.id) {
      if (Date.now() > giveUp) throw new Error('the first check never started');
      await new Promise((r) => setTimeout(r, 100));
    }
    const second = await runCheck(monitor.id);
    expect(second).toMatchObject({ status: 'skipped_overlap', actualCredits: 0, summary: { totalPages: 0 } });
    const done = await waitForCheck(monitor.id, first.body.data.id);
    expect(done).toMatchObject({ status: 'completed', summary: { totalPages: 1, new: 1 } });
    const skipped = (await api(`/v2/monitor/${monitor.id}/checks?status=skipped_overlap`)).body.data;
    expect(skipped.map((c: any) => c.id)).toEqual([second.id]);
    site.slow('/slow', 0);
    await api(`/v2/monitor/${monitor.id}`, { method: 'DELETE' });
  });

  it('records a check of a team without credits as skipped_no_credits, fetching nothing', async () => {
    const key = await createKeyWithCli(databaseUrl, 'monitor-broke-team');
    const broke = apiClient(apiUrl, key);
    site.set('/unpaid', '<p>Never fetched.</p>');
    const monitor = await createMonitor({ targets: [{ type: 'scrape', urls: [site.url('/unpaid')] }] }, broke);
    await runAdmin(databaseUrl, ['teams', 'set', 'monitor-broke-team', '--credits', '0']);
    const check = await runCheck(monitor.id, broke);
    expect(check).toMatchObject({ status: 'skipped_no_credits', actualCredits: 0, pages: [] });
    expect(site.requests('/unpaid')).toBe(0);
    await broke(`/v2/monitor/${monitor.id}`, { method: 'DELETE' });
  });
});

describe('search targets', () => {
  it('reports the results a check has not seen before as new, and those it has as same', async () => {
    // The shared stack searches the team's own pages (the built-in index): scraping them indexes them.
    site.set('/nudibranch-1', '<h1>Nudibranch notes</h1><p>The nudibranch is a sea slug of many colours.</p>');
    site.set('/nudibranch-2', '<h1>More nudibranch notes</h1><p>A second nudibranch page, found later.</p>');
    site.set('/other', '<h1>Other</h1><p>Nothing about sea slugs here.</p>');
    for (const path of ['/nudibranch-1', '/other']) expect((await api('/v2/scrape', { body: { url: site.url(path) } })).status).toBe(200);
    const m = await createMonitor({ targets: [{ type: 'search', id: 'slugs', queries: ['nudibranch'], maxResults: 10 }] });
    expect(m.estimatedCreditsPerMonth).toBeGreaterThan(0);

    const first = await runCheck(m.id);
    expect(first.status).toBe('completed');
    expect(Object.fromEntries(first.pages.map((p: any) => [new URL(p.url).pathname, p.status]))).toEqual({ '/nudibranch-1': 'new' });
    expect(first.actualCredits).toBe(2);

    expect((await api('/v2/scrape', { body: { url: site.url('/nudibranch-2') } })).status).toBe(200);
    const second = await runCheck(m.id);
    expect(Object.fromEntries(second.pages.map((p: any) => [new URL(p.url).pathname, p.status]))).toEqual({ '/nudibranch-1': 'same', '/nudibranch-2': 'new' });
    expect(second.summary).toMatchObject({ new: 1, same: 1 });
    await api(`/v2/monitor/${m.id}`, { method: 'DELETE' });
  });
});
