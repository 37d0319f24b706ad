import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../../helpers/api-client.js';
import { insertJobRow, startJobReadFixture, type JobReadFixture } from './job-read-fixture.js';

let fx: JobReadFixture;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  // Status routes first: `/v2/crawl/:id` must still leave `active` and `ongoing` alone.
  fx = await startJobReadFixture({ statusRoutesFirst: true });
  api = apiClient(fx.baseUrl, fx.team.key);
});

afterAll(async () => {
  await fx?.close();
});

describe('GET /v2/crawl/active', () => {
  it("lists only the team's running crawls, in Firecrawl's shape", async () => {
    const options = {
      limit: 50,
      includePaths: ['^/docs'],
      webhook: { url: 'https://hooks.example.com/', headers: { authorization: 'secret' } },
      scrapeOptions: { formats: ['markdown'], onlyMainContent: true },
    };
    const running = await insertJobRow(fx.db, {
      teamId: fx.team.teamId,
      url: 'https://docs.example.com/',
      options,
    });
    await insertJobRow(fx.db, { teamId: fx.team.teamId, status: 'completed' });
    await insertJobRow(fx.db, { teamId: fx.team.teamId, status: 'cancelled' });
    await insertJobRow(fx.db, { teamId: fx.team.teamId, kind: 'batch_scrape' });
    await insertJobRow(fx.db, { teamId: fx.otherTeam.teamId });

    for (const path of ['/v2/crawl/active', '/v2/crawl/ongoing', '/v1/crawl/active', '/v1/crawl/ongoing']) {
      const res = await api(path);
      expect(res.status, path).toBe(200);
      expect(res.body, path).toEqual({
        success: true,
        crawls: [
          {
            id: running,
            teamId: fx.team.teamId,
            url: 'https://docs.example.com/',
            status: 'scraping',
            created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
            options: {
              limit: 50,
              includePaths: ['^/docs'],
              scrapeOptions: { formats: ['markdown'], onlyMainContent: true },
            },
          },
        ],
      });
    }
  });

  it('answers an empty list when nothing runs', async () => {
    const res = await api('/v2/crawl/active', { key: fx.otherTeam.key });
    expect(res.body.success).toBe(true);
    expect(res.body.crawls).toHaveLength(1);
    await fx.db.updateTable('jobs').set({ status: 'completed' }).where('team_id', '=', fx.otherTeam.teamId).execute();
    expect((await api('/v2/crawl/active', { key: fx.otherTeam.key })).body).toEqual({ success: true, crawls: [] });
  });

  it('needs a key with the crawl scope', async () => {
    expect((await api('/v2/crawl/active', { key: null })).status).toBe(401);
    expect((await api('/v2/crawl/ongoing', { key: fx.scrapeOnlyKey })).status).toBe(403);
  });
});
