import type { apiClient } from './api-client.js';

/** Polls a crawl, batch or extract status (`path` is `crawl`, `batch/scrape` or `extract`) until it ends. */
export async function waitForJobEnd(api: ReturnType<typeof apiClient>, path: string, id: string, timeoutMs = 120_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await api(`/v2/${path}/${id}`);
    if (res.body.status !== 'scraping' && res.body.status !== 'processing') return res.body;
    if (Date.now() > until) throw new Error(`job ${id} still running after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
