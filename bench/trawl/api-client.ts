/** The bench's calls to Trawl's public API, as a Firecrawl client makes them. */
import { setTimeout as sleep } from 'node:timers/promises';

export interface ApiTarget {
  apiUrl: string;
  apiKey: string;
}

export interface CrawlStatus {
  status: string;
  completed: number;
  total: number;
}

async function call<T>(target: ApiTarget, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${target.apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${target.apiKey}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status} ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}

export async function startCrawl(target: ApiTarget, body: Record<string, unknown>): Promise<string> {
  const { id } = await call<{ id: string }>(target, 'POST', '/v2/crawl', body);
  return id;
}

/**
 * Polls GET /v2/crawl/{id} until the job is no longer running. `limit=1` keeps each poll to one
 * document: the figures, not the documents, are what the bench waits for.
 */
export async function waitForCrawl(
  target: ApiTarget,
  id: string,
  options: { pollMs?: number; timeoutMs: number; onPoll?: (status: CrawlStatus) => void },
): Promise<CrawlStatus> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const status = await call<CrawlStatus>(target, 'GET', `/v2/crawl/${id}?limit=1`);
    options.onPoll?.(status);
    if (status.status !== 'scraping') return status;
    if (Date.now() > deadline) throw new Error(`crawl ${id} still running after ${options.timeoutMs / 1000} s (${status.completed} pages done)`);
    await sleep(options.pollMs ?? 200);
  }
}

/** Every page a finished crawl stored, following `next`: each one's sourceURL and metadata. */
export async function crawlDocuments(target: ApiTarget, id: string): Promise<{ metadata: Record<string, unknown> & { sourceURL: string } }[]> {
  const documents: { metadata: Record<string, unknown> & { sourceURL: string } }[] = [];
  for (let path: string | undefined = `/v2/crawl/${id}`; path; ) {
    const page: { data: typeof documents; next?: string } = await call(target, 'GET', path);
    documents.push(...page.data);
    path = page.next && new URL(page.next).pathname + new URL(page.next).search;
  }
  return documents;
}

/** One POST /v2/scrape; resolves to the Document. */
export async function scrape(target: ApiTarget, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { data } = await call<{ data: Record<string, unknown> }>(target, 'POST', '/v2/scrape', body);
  return data;
}
