/** Checks on page jobs that durability and fault tests share: pages stored exactly once, and the counts agree. */
import { expect } from 'vitest';
import type { Db } from '../../db/connect.js';
import type { apiClient } from './api-client.js';

export function crawlChecks(db: Db, api: ReturnType<typeof apiClient>) {
  async function completedPages(jobId: string): Promise<number> {
    const { count } = await db
      .selectFrom('documents')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('job_id', '=', jobId)
      .where('status', '=', 'completed')
      .executeTakeFirstOrThrow();
    return Number(count);
  }

  async function waitForPages(jobId: string, atLeast: number, timeoutMs = 120_000) {
    const until = Date.now() + timeoutMs;
    while ((await completedPages(jobId)) < atLeast) {
      if (Date.now() > until) throw new Error(`fewer than ${atLeast} pages after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Polls status through the API (tolerating it being down) until the job is terminal; `path` is `crawl` or `batch/scrape`. */
  async function waitForEnd(jobId: string, path = 'crawl', timeoutMs = 300_000) {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const res = await api(`/v2/${path}/${jobId}?limit=1`).catch(() => undefined);
      if (res?.status === 200 && res.body.status !== 'scraping') return res.body;
      if (Date.now() > until) throw new Error(`job ${jobId} still running after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /** Every page is stored exactly once, nothing is left open, and the counts agree; resolves to the final status. */
  async function expectEveryPageOnce(jobId: string, pages: number, path = 'crawl') {
    const status = await waitForEnd(jobId, path);
    expect(status.status).toBe('completed');
    expect(status.completed).toBe(pages);
    expect(status.total).toBe(pages);
    const rows = await db.selectFrom('documents').select(['url', 'status']).where('job_id', '=', jobId).execute();
    expect(rows).toHaveLength(pages);
    expect(new Set(rows.map((r) => r.url)).size).toBe(pages);
    expect(rows.every((r) => r.status === 'completed')).toBe(true);
    const open = await db.selectFrom('crawl_pages').select('url').where('job_id', '=', jobId).where('status', '!=', 'completed').execute();
    expect(open).toEqual([]);
    return status;
  }

  return { completedPages, waitForPages, waitForEnd, expectEveryPageOnce };
}
