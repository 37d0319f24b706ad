/**
 * What stops one tenant from loading the shared workers and Temporal through monitors: the plan's
 * monitor cap, a monthly estimate the plan cannot pay refused (on create and on PATCH), each
 * target's kind needing its scope, stop actions outside the crawl rate limit, and `teams delete`.
 */
import { Client, Connection, ScheduleNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../db/connect.js';
import { apiClient } from '../helpers/api-client.js';
import { startMonitorSite, type MonitorSite } from '../helpers/monitor-site.js';
import { createKeyWithCli, runAdmin } from '../helpers/run-admin.js';
import { e2eContext } from './context.js';

const { apiUrl, databaseUrl, temporalAddress } = e2eContext();
let db: Db;
let connection: Connection;
let temporal: Client;
let site: MonitorSite;

beforeAll(async () => {
  db = createDb(databaseUrl, { maxConnections: 2 });
  connection = await Connection.connect({ address: temporalAddress });
  temporal = new Client({ connection });
  site = await startMonitorSite();
  site.set('/watched', '<p>A page to watch.</p>');
}, 60_000);

afterAll(async () => {
  await site?.close();
  await connection?.close();
  await db?.destroy();
});

async function teamWith(name: string, plan: string[], scopes: string[] = []) {
  await runAdmin(databaseUrl, ['teams', 'set', name, ...plan]);
  return apiClient(apiUrl, await createKeyWithCli(databaseUrl, name, scopes));
}

const monitor = (schedule: string, targets: unknown[] = [{ type: 'scrape', urls: [site.url('/watched')] }]) => ({
  body: { name: 'limits', schedule: { text: schedule }, targets },
});

async function scheduleExists(monitorId: string): Promise<boolean> {
  try {
    await temporal.schedule.getHandle(`monitor-${monitorId}`).describe();
    return true;
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) return false;
    throw err;
  }
}

describe('monitors within the plan', () => {
  it("refuses a monitor past the plan's cap with 403, and counts only the team's own", async () => {
    const api = await teamWith(`cap-${Date.now()}`, ['--monitors', '2']);
    for (let i = 0; i < 2; i++) expect((await api('/v2/monitor', monitor('daily'))).status).toBe(200);
    const third = await api('/v2/monitor', monitor('daily'));
    expect(third.status).toBe(403);
    expect(third.body).toMatchObject({ success: false, error: expect.stringContaining('at most 2 monitors') });
    const listed = await api('/v2/monitor');
    expect(listed.body.data).toHaveLength(2);
  });

  it("refuses with 402 a monitor whose monthly estimate exceeds the plan's credits, on create and on PATCH", async () => {
    const api = await teamWith(`estimate-${Date.now()}`, ['--credits', '100']);
    const tooOften = await api('/v2/monitor', monitor('every 5 minutes'));
    expect(tooOften.status).toBe(402);
    expect(tooOften.body).toMatchObject({ success: false, error: expect.stringContaining('Insufficient credits'), details: { monthlyCredits: 100 } });
    expect(tooOften.body.details.estimatedCreditsPerMonth).toBeGreaterThan(8000);
    const daily = await api('/v2/monitor', monitor('daily'));
    expect(daily.status).toBe(200);
    const faster = await api(`/v2/monitor/${daily.body.data.id}`, { method: 'PATCH', body: { schedule: { text: 'every 5 minutes' } } });
    expect(faster.status).toBe(402);
    // Pausing it while changing the schedule costs nothing, so it is allowed.
    const paused = await api(`/v2/monitor/${daily.body.data.id}`, { method: 'PATCH', body: { status: 'paused', schedule: { text: 'every 5 minutes' } } });
    expect(paused.status).toBe(200);
  });
});

describe("a monitor's targets need their own scopes", () => {
  it('refuses a search or scrape target to a key limited to crawl, on create, PATCH and run', async () => {
    const team = `scopes-${Date.now()}`;
    const crawlOnly = await teamWith(team, [], ['--scopes', 'crawl']);
    const search = await crawlOnly('/v2/monitor', monitor('daily', [{ type: 'search', queries: ['trawl'] }]));
    expect(search.status).toBe(403);
    expect(search.body.error).toContain('search');
    expect((await crawlOnly('/v2/monitor', monitor('daily'))).status).toBe(403);
    const crawl = await crawlOnly('/v2/monitor', monitor('daily', [{ type: 'crawl', url: site.url('/watched'), crawlOptions: { limit: 2 } }]));
    expect(crawl.status, JSON.stringify(crawl.body)).toBe(200);
    const patched = await crawlOnly(`/v2/monitor/${crawl.body.data.id}`, { method: 'PATCH', body: { targets: [{ type: 'search', queries: ['x'] }] } });
    expect(patched.status).toBe(403);
    // A monitor made by a fuller key of the team cannot be run by the narrower one.
    const full = apiClient(apiUrl, await createKeyWithCli(databaseUrl, team, ['--scopes', 'crawl,search']));
    const mixed = await full('/v2/monitor', monitor('daily', [{ type: 'search', queries: ['trawl'] }]));
    expect(mixed.status).toBe(200);
    expect((await crawlOnly(`/v2/monitor/${mixed.body.data.id}/run`, { method: 'POST' })).status).toBe(403);
  });
});

describe('stopping a monitor', () => {
  it('is not held back by the crawl rate limit that its creation spent', async () => {
    const api = await teamWith(`stop-${Date.now()}`, ['--crawl-rpm', '2']);
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) ids.push((await api('/v2/monitor', monitor('daily'))).body.data.id);
    expect((await api('/v2/monitor', monitor('daily'))).status).toBe(429);
    expect((await api(`/v2/monitor/${ids[0]}`, { method: 'PATCH', body: { status: 'paused' } })).status).toBe(200);
    expect((await api(`/v2/monitor/${ids[1]}`, { method: 'DELETE' })).status).toBe(200);
    expect(await scheduleExists(ids[1]!)).toBe(false);
  });
});

describe('teams delete', () => {
  it("revokes the team's keys and deletes its monitors and Schedules, keeping its jobs and ledger", async () => {
    const name = `doomed-${Date.now()}`;
    const api = await teamWith(name, []);
    const scraped = await api('/v2/scrape', { body: { url: site.url('/watched') } });
    expect(scraped.status).toBe(200);
    const created = await api('/v2/monitor', monitor('daily'));
    expect(await scheduleExists(created.body.data.id)).toBe(true);
    const team = await db.selectFrom('teams').select('id').where('name', '=', name).executeTakeFirstOrThrow();
    const ledgerBefore = await db.selectFrom('credit_ledger').select('id').where('team_id', '=', team.id).execute();
    expect(ledgerBefore.length).toBeGreaterThan(0);

    const { stdout } = await runAdmin(databaseUrl, ['teams', 'delete', name], { TEMPORAL_ADDRESS: temporalAddress });
    expect(stdout).toContain('1 monitor(s) deleted');
    expect((await api('/v2/team/credit-usage')).status).toBe(401);
    expect(await scheduleExists(created.body.data.id)).toBe(false);
    expect(await db.selectFrom('credit_ledger').select('id').where('team_id', '=', team.id).execute()).toHaveLength(ledgerBefore.length);
    expect(await db.selectFrom('jobs').select('id').where('team_id', '=', team.id).execute()).not.toHaveLength(0);
    // The name is free again: a new team of that name starts empty.
    const again = await teamWith(name, []);
    expect((await again('/v2/monitor')).body.data).toEqual([]);
  });

  it('answers --help on every command with its usage, and an unknown flag with usage, not a stack trace', async () => {
    const top = await runAdmin(databaseUrl, ['--help']);
    expect(top.stdout).toContain('teams delete NAME');
    for (const command of [['keys', 'create'], ['teams', 'set'], ['teams', 'delete'], ['threat-protection', 'show']]) {
      const { stdout } = await runAdmin(databaseUrl, [...command, '--help']);
      expect(stdout, command.join(' ')).toContain(`npm run admin -- ${command.join(' ')}`);
    }
    const bad = await runAdmin(databaseUrl, ['keys', 'list', '--bogus']).catch((err: { code: number; stderr: string }) => err);
    expect(bad).toMatchObject({ code: 2 });
    expect((bad as { stderr: string }).stderr).toContain("Unknown option '--bogus'");
    expect((bad as { stderr: string }).stderr).not.toContain('TypeError');
  });
});
