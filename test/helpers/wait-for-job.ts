import type { apiClient } from './api-client.js';

/** Polls a crawl or batch status (`path` is `crawl` or `batch/scrape`) until it leaves `scraping`. */
export async function waitForJobEnd(api: ReturnType<typeof apiClient>, path: string, id: string, timeoutMs = 120_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await api(`/v2/${path}/${id}`);
    if (res.body.status !== 'scraping') return res.body;
    if (Date.now() > until) throw new Error(`job ${id} still running after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
