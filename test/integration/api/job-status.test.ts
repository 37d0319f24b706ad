import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeExpiredJobs } from '../../../db/repositories/retention.js';
import { apiClient } from '../../helpers/api-client.js';
import {
  insertCompletedDocuments,
  insertDocumentRow,
  insertJobRow,
  insertPages,
  setJobRowStatus,
  startJobReadFixture,
  type JobReadFixture,
} from './job-read-fixture.js';

const MiB = 1024 * 1024;

let fx: JobReadFixture;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  fx = await startJobReadFixture({ statusRoutesFirst: true });
  api = apiClient(fx.baseUrl, fx.team.key);
});

afterAll(async () => {
  await fx?.close();
});

function job(jobId: string) {
  return { jobId, teamId: fx.team.teamId };
}

/** Follows `next` from the first page; returns every page body and the documents' source URLs. */
async function readAllPages(firstPath: string) {
  const pages: any[] = [];
  let url: string | undefined = new URL(firstPath, fx.baseUrl).toString();
  while (url) {
    const res: { status: number; body: any } = await api(url);
    expect(res.status).toBe(200);
    pages.push(res.body);
    url = res.body.next;
    if (pages.length > 50) throw new Error('pagination does not end');
  }
  return { pages, urls: pages.flatMap((p) => p.data.map((d: any) => d.metadata.sourceURL as string)) };
}

describe('GET /v2/crawl/:id', () => {
  it('answers a job that has no pages yet with scraping, 0 of 0', async () => {
    const id = await insertJobRow(fx.db, { teamId: fx.team.teamId });
    const res = await api(`/v2/crawl/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      status: 'scraping',
      completed: 0,
      total: 0,
      creditsUsed: 0,
      expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      data: [],
    });
  });

  it('counts pages by status, excludes cancelled pages from total, sums credits of completed documents', async () => {
    const id = await insertJobRow(fx.db, { teamId: fx.team.teamId, status: 'cancelled' });
    await insertPages(fx.db, id, [
      { status: 'completed' },
      { status: 'completed' },
      { status: 'completed' },
      { status: 'failed' },
      { status: 'queued' },
      { status: 'scraping' },
      { status: 'cancelled' },
      { status: 'cancelled' },
    ]);
    await insertDocumentRow(fx.db, { ...job(id), creditsUsed: 1 });
    await insertDocumentRow(fx.db, { ...job(id), creditsUsed: 5 });
    await insertDocumentRow(fx.db, { ...job(id), creditsUsed: 2 });
    await insertDocumentRow(fx.db, { ...job(id), status: 'failed', creditsUsed: 7, error: 'boom' });

    const res = await api(`/v2/crawl/${id}`);
    expect(res.body).toMatchObject({ success: true, status: 'cancelled', completed: 3, total: 6, creditsUsed: 8 });
    expect(res.body.data).toHaveLength(3);
  });

  it('reports completed + failed == total for a finished job', async () => {
    const id = await insertJobRow(fx.db, { teamId: fx.team.teamId, status: 'completed' });
    await insertPages(fx.db, id, [{ status: 'completed' }, { status: 'failed' }, { status: 'cancelled' }]);
    const res = await api(`/v2/crawl/${id}`);
    expect(res.body.completed + 1).toBe(res.body.total);
  });

  it('pages with skip/limit, links `next` absolutely, and stops on the last page', async () => {
    const id = await insertJobRow(fx.db, { teamId: fx.team.teamId, status: 'completed' });
    await insertCompletedDocuments(fx.db, job(id), 25);

    const first = await api(`/v2/crawl/${id}?limit=10`);
    expect(first.body.data).toHaveLength(10);
    expect(first.body.next).toBe(`${fx.baseUrl}/v2/crawl/${id}?skip=10&limit=10`);

    const { pages, urls } = await readAllPages(`/v2/crawl/${id}?limit=10`);
    expect(pages.map((p) => p.data.length)).toEqual([10, 10, 5]);
    expect(pages.at(-1).next).toBeUndefined();
    expect(urls).toEqual(Array.from({ length: 25 }, (_, i) => `https://example.com/p/${i}`));
    const cursors = pages.map((p) => p.next).filter(Boolean);
    expect(new Set(cursors).size).toBe(cursors.length);

    const middle = await api(`/v2/crawl/${id}?skip=12&limit=3`);
    expect(middle.body.data.map((d: any) => d.metadata.sourceURL)).toEqual([
      'https://example.com/p/12',
      'https://example.com/p/13',
      'https://example.com/p/14',
    ]);
  });

  it('defaults to 100 documents a page and leaves limit out of `next` when the caller did', async () => {
    const id = await insertJobRow(fx.db, { teamId: fx.team.teamId, status: 'completed' });
    await insertCompletedDocuments(fx.db, job(id), 103);
    const first = await api(`/v2/crawl/${id}`);
    expect(first.body.data).toHaveLength(100);
    expect(first.body.next).toBe(`${fx.baseUrl}/v2/crawl/${id}?skip=100`);
    const last = await api(first.body.next);
    expect(last.body.data).toHaveLength(3);
    expect(last.body.next).toBeUndefined();
  });

  it('gives no `next` on an empty page of a running job, nor past the end', async () => {
    const id = await insertJobRow(fx.db, { teamId: fx.team.teamId });
    await insertPages(fx.db, id, [{ status: 'completed' }, { status: 'completed' }, { status: 'queued' }]);
    await insertCompletedDocuments(fx.db, job(id), 2);

    const all = await api(`/v2/crawl/${id}`);
    expect(all.body).toMatchObject({ status: 'scraping', completed: 2, total: 3 });
    expect(all.body.data).toHaveLength(2);
    expect(all.body).not.toHaveProperty('next');

    const beyond = await api(`/v2/crawl/${id}?skip=2`);
    expect(beyond.body.data).toEqual([]);
    expect(beyond.body).not.toHaveProperty('next');

    const far = await api(`/v2/crawl/${id}?skip=500`);
    expect(far.body.data).toEqual([]);
    expect(far.body).not.toHaveProperty('next');
  });

  it('holds back documents written in the last moment while the job runs, and shows them once it ends', async () => {
    const id = await insertJobRow(fx.db, { teamId: fx.team.teamId });
    await insertCompletedDocuments(fx.db, job(id), 1);
    await insertDocumentRow(fx.db, job(id));
    const running = await api(`/v2/crawl/${id}`);
    expect(running.body.data).toHaveLength(1);
    expect(running.body).not.toHaveProperty('next');

    await setJobRowStatus(fx.db, id, 'completed');
    const done = await api(`/v2/crawl/${id}`);
    expect(done.body.data).toHaveLength(2);
  });

  it('cuts a page before the documents pass 10 MiB, always returning at least one', async () => {
    const id = await insertJobRow(fx.db, { teamId: fx.team.teamId, status: 'completed' });
    const start = Date.now() - 60_000;
    const sizes = [4 * MiB, 4 * MiB, 4 * MiB, 11 * MiB, 1 * MiB, 2 * MiB];
    for (const [i, sizeBytes] of sizes.entries()) {
      await insertDocumentRow(fx.db, {
        ...job(id),
        url: `https://example.com/big/${i}`,
        sizeBytes,
        createdAt: new Date(start + i),
      });
    }
    const { pages, urls } = await readAllPages(`/v2/crawl/${id}`);
    expect(pages.map((p) => p.data.length)).toEqual([2, 1, 1, 2]);
    expect(urls).toEqual(sizes.map((_, i) => `https://example.com/big/${i}`));
    expect(pages.map((p) => p.next)).toEqual([
      `${fx.baseUrl}/v2/crawl/${id}?skip=2`,
      `${fx.baseUrl}/v2/crawl/${id}?skip=3`,
      `${fx.baseUrl}/v2/crawl/${id}?skip=4`,
      undefined,
    ]);
  });

  it('keeps real responses of large documents under about 10 MiB', async () => {
    const id = await insertJobRow(fx.db, { teamId: fx.team.teamId, status: 'completed' });
    const markdown = 'x'.repeat(3 * MiB);
    const start = Date.now() - 60_000;
    for (let i = 0; i < 4; i++) {
      const url = `https://example.com/real/${i}`;
      await insertDocumentRow(fx.db, {
        ...job(id),
        url,
        document: { markdown, metadata: { sourceURL: url } },
        createdAt: new Date(start + i),
      });
    }
    const first = await fetch(`${fx.baseUrl}/v2/crawl/${id}`, { headers: { authorization: `Bearer ${fx.team.key}` } });
    const text = await first.text();
    expect(text.length).toBeLessThan(10 * MiB);
    const body = JSON.parse(text);
    expect(body.data).toHaveLength(3);
    expect(body.next).toBe(`${fx.baseUrl}/v2/crawl/${id}?skip=3`);
  });

  it('rejects bad skip and limit with the BAD_REQUEST envelope', async () => {
    const id = await insertJobRow(fx.db, { teamId: fx.team.teamId });
    for (const query of ['skip=-1', 'skip=abc', 'skip=1.5', 'limit=0', 'limit=1001', 'limit=x']) {
      const res = await api(`/v2/crawl/${id}?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body, query).toMatchObject({ success: false, code: 'BAD_REQUEST' });
    }
    expect((await api(`/v2/crawl/${id}?limit=1000`)).status).toBe(200);
  });

  it('rejects an id that is not a UUID with 400', async () => {
    const res = await api('/v2/crawl/not-a-uuid');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      success: false,
      code: 'BAD_REQUEST',
      error: 'Invalid job ID format. Job ID must be a valid UUID.',
    });
  });

  it("answers 404 Job not found for an unknown id and for another team's job", async () => {
    const theirs = await insertJobRow(fx.db, { teamId: fx.otherTeam.teamId });
    for (const id of [theirs, '00000000-0000-4000-8000-000000000000']) {
      const res = await api(`/v2/crawl/${id}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ success: false, code: 'JOB_NOT_FOUND', error: 'Job not found' });
    }
    expect((await api(`/v2/crawl/${theirs}`, { key: fx.otherTeam.key })).status).toBe(200);
  });

  it('needs a key with the crawl scope', async () => {
    const id = await insertJobRow(fx.db, { teamId: fx.team.teamId });
    expect((await api(`/v2/crawl/${id}`, { key: null })).status).toBe(401);
    expect((await api(`/v2/crawl/${id}`, { key: fx.scrapeOnlyKey })).status).toBe(403);
  });

  it('adds a robots.txt warning once the job has ended, after the job warning', async () => {
    const id = await insertJobRow(fx.db, { teamId: fx.team.teamId, warning: 'Limit clamped to 500.' });
    await fx.db.insertInto('robots_blocked').values({ job_id: id, url: 'https://example.com/private' }).execute();

    const running = await api(`/v2/crawl/${id}`);
    expect(running.body.warning).toBe('Limit clamped to 500.');

    await setJobRowStatus(fx.db, id, 'completed');
    const done = await api(`/v2/crawl/${id}`);
    expect(done.body.warning).toMatch(/^Limit clamped to 500\. .*robots\.txt/);

    const plain = await insertJobRow(fx.db, { teamId: fx.team.teamId, status: 'completed' });
    await fx.db.insertInto('robots_blocked').values({ job_id: plain, url: 'https://example.com/x' }).execute();
    expect((await api(`/v2/crawl/${plain}`)).body.warning).toMatch(/robots\.txt/);
  });

  it('builds `next` from forwarded headers of a trusted proxy', async () => {
    const id = await insertJobRow(fx.db, { teamId: fx.team.teamId, status: 'completed' });
    await insertCompletedDocuments(fx.db, job(id), 2);
    const res = await api(`/v2/crawl/${id}?limit=1`, {
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'crawl.example.org' },
    });
    expect(res.body.next).toBe(`https://crawl.example.org/v2/crawl/${id}?skip=1&limit=1`);
  });
});

describe('kinds and versions', () => {
  it('serves crawls under /crawl and batch scrapes under /batch/scrape, in v1 and v2', async () => {
    const crawl = await insertJobRow(fx.db, { teamId: fx.team.teamId, kind: 'crawl', status: 'completed' });
    const batch = await insertJobRow(fx.db, { teamId: fx.team.teamId, kind: 'batch_scrape', status: 'completed' });
    await insertCompletedDocuments(fx.db, job(batch), 3);

    expect((await api(`/v2/crawl/${batch}`)).status).toBe(404);
    expect((await api(`/v2/crawl/${batch}/errors`)).status).toBe(404);
    for (const v of ['v1', 'v2']) {
      expect((await api(`/${v}/crawl/${crawl}`)).status).toBe(200);
      expect((await api(`/${v}/batch/scrape/${crawl}`)).status).toBe(404);
      expect((await api(`/${v}/batch/scrape/${crawl}/errors`)).status).toBe(404);
      const res = await api(`/${v}/batch/scrape/${batch}?limit=2`);
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(2);
      expect(res.body.next).toBe(`${fx.baseUrl}/${v}/batch/scrape/${batch}?skip=2&limit=2`);
    }
  });

  it('serves batch scrapes under /v1/crawl too, which the v1 SDK batch waiter polls', async () => {
    const batch = await insertJobRow(fx.db, { teamId: fx.team.teamId, kind: 'batch_scrape', status: 'completed' });
    await insertCompletedDocuments(fx.db, job(batch), 3);
    const res = await api(`/v1/crawl/${batch}?limit=2`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, status: 'completed' });
    expect(res.body.data).toHaveLength(2);
    expect(res.body.next).toBe(`${fx.baseUrl}/v1/crawl/${batch}?skip=2&limit=2`);
    expect((await api(`/v1/crawl/${batch}/errors`)).status).toBe(200);
    // Still one team's: another team's key sees nothing.
    const other = apiClient(fx.baseUrl, fx.otherTeam.key);
    expect((await other(`/v1/crawl/${batch}`)).status).toBe(404);
  });
});

describe('GET /v2/crawl/:id/errors', () => {
  it('lists failed pages and robots-blocked URLs, without a success key', async () => {
    const id = await insertJobRow(fx.db, { teamId: fx.team.teamId, status: 'completed' });
    await insertCompletedDocuments(fx.db, job(id), 1);
    const failedId = await insertDocumentRow(fx.db, {
      ...job(id),
      url: 'https://example.com/broken',
      status: 'failed',
      errorCode: 'SCRAPE_SITE_ERROR',
      error: 'Site returned 500',
    });
    await fx.db
      .insertInto('robots_blocked')
      .values([
        { job_id: id, url: 'https://example.com/b' },
        { job_id: id, url: 'https://example.com/a' },
      ])
      .execute();

    const res = await api(`/v2/crawl/${id}/errors`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      errors: [
        {
          id: failedId,
          timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
          url: 'https://example.com/broken',
          code: 'SCRAPE_SITE_ERROR',
          error: 'Site returned 500',
        },
      ],
      robotsBlocked: ['https://example.com/a', 'https://example.com/b'],
      webhookFailures: [],
    });
  });

  it('answers an empty job with empty lists, and 404/400 like the status route', async () => {
    const id = await insertJobRow(fx.db, { teamId: fx.team.teamId });
    expect((await api(`/v1/crawl/${id}/errors`)).body).toEqual({ errors: [], robotsBlocked: [], webhookFailures: [] });
    const theirs = await insertJobRow(fx.db, { teamId: fx.otherTeam.teamId });
    expect((await api(`/v2/crawl/${theirs}/errors`)).status).toBe(404);
    expect((await api('/v2/crawl/nope/errors')).status).toBe(400);
  });
});

describe('PUBLIC_URL', () => {
  it('builds `next` from the configured public URL', async () => {
    const other = await startJobReadFixture({ publicUrl: 'https://trawl.example.com/api/' });
    try {
      const id = await insertJobRow(other.db, { teamId: other.team.teamId, status: 'completed' });
      await insertCompletedDocuments(other.db, { jobId: id, teamId: other.team.teamId }, 2);
      const res = await apiClient(other.baseUrl, other.team.key)(`/v2/crawl/${id}?limit=1`);
      expect(res.body.next).toBe(`https://trawl.example.com/api/v2/crawl/${id}?skip=1&limit=1`);
    } finally {
      await other.close();
    }
  });
});

describe('expired jobs', () => {
  it('answer 404 JOB_EXPIRED on every status read, before and after the purge', async () => {
    const crawl = await insertJobRow(fx.db, { teamId: fx.team.teamId, expiresAt: new Date(Date.now() - 1000) });
    const batch = await insertJobRow(fx.db, { teamId: fx.team.teamId, kind: 'batch_scrape', expiresAt: new Date(Date.now() - 1000) });
    const reads = [`/v2/crawl/${crawl}`, `/v2/crawl/${crawl}/errors`, `/v1/crawl/${crawl}`, `/v2/batch/scrape/${batch}`];
    const expectExpired = async () => {
      for (const path of reads) {
        const res = await api(path);
        expect(res.status, path).toBe(404);
        expect(res.body, path).toMatchObject({ success: false, code: 'JOB_EXPIRED', error: 'Job expired' });
      }
    };
    await expectExpired();
    expect(await purgeExpiredJobs(fx.db)).toBeGreaterThanOrEqual(2);
    await expectExpired();
  });

  it('stay plain not-found for another kind and for ids never seen', async () => {
    const crawl = await insertJobRow(fx.db, { teamId: fx.team.teamId, expiresAt: new Date(Date.now() - 1000) });
    expect((await api(`/v2/batch/scrape/${crawl}`)).body.code).toBe('JOB_NOT_FOUND');
    expect((await api('/v2/crawl/00000000-0000-4000-8000-000000000000')).body.code).toBe('JOB_NOT_FOUND');
  });
});
