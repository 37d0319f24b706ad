/**
 * Jina Reader's GET /r/<url> and /s/<query> (issue #34 §5): Jina's answer shapes (text, JSON,
 * event stream) and request headers, over the same job, keys and credits as /v2/scrape and
 * /v2/search. The fixture site records its requests, so "fetched afresh" is measured.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection, WorkflowClient } from '@temporalio/client';
import { createDb, type Db } from '../../db/connect.js';
import { apiClient } from '../helpers/api-client.js';
import { startCountingProxy, type CountingProxy } from '../helpers/counting-proxy.js';
import { createKeyWithCli } from '../helpers/run-admin.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { e2eContext } from './context.js';

const { apiUrl, databaseUrl, temporalAddress } = e2eContext();
let site: FixtureSite;
let key: string;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  site = await startFixtureSite();
  key = await createKeyWithCli(databaseUrl, 'compat-reader');
  api = apiClient(apiUrl, key);
});

afterAll(async () => {
  await site?.close();
});

/** A GET as Jina's clients send it: the target in the path, options in headers. */
async function read(path: string, headers: Record<string, string> = {}, withKey = true) {
  const res = await fetch(`${apiUrl}${path}`, { headers: { ...(withKey && { authorization: `Bearer ${key}` }), ...headers } });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}
const credits = async () => (await api('/v2/team/credit-usage')).body.data.remainingCredits as number;

describe('GET /r/<url>', () => {
  it("answers Jina's text blocks, the same markdown /v2/scrape gives, for the same credit", async () => {
    const before = await credits();
    const res = await read(`/r/${site.url}/article`);
    expect(res.status).toBe(200);
    expect(res.type).toContain('text/plain');
    const [head, content] = res.text.split('\n\nMarkdown Content:\n');
    expect(head).toBe(`Title: Durable Crawling\n\nURL Source: ${site.url}/article`);
    const scraped = await api('/v2/scrape', { body: { url: `${site.url}/article` } });
    expect(content).toBe(scraped.body.data.markdown);
    // The /v2/scrape above was a cache hit, charged like a fetch: 1 + 1.
    expect(before - (await credits())).toBe(2);
  });

  it('answers JSON for Accept: application/json and one data event for text/event-stream; the URL may come encoded', async () => {
    const json = await read(`/r/${encodeURIComponent(`${site.url}/article`)}`, { accept: 'application/json' });
    const body = JSON.parse(json.text);
    expect(body).toMatchObject({ code: 200, status: 20000, data: { title: 'Durable Crawling', url: `${site.url}/article`, description: 'How durable crawls work' } });
    expect(body.data.content).toContain('Durable crawling means a crash never loses a page');
    const stream = await read(`/r/${site.url}/article`, { accept: 'text/event-stream' });
    expect(stream.type).toContain('text/event-stream');
    const [event, data] = stream.text.trimEnd().split('\n');
    expect(event).toBe('event: data');
    expect(JSON.parse(data!.slice('data: '.length))).toEqual(body.data);
  });

  it('honours X-Target-Selector, X-Remove-Selector, X-Retain-Images, X-Return-Format html and the summaries', async () => {
    const target = await read(`/r/${site.url}/article`, { 'x-target-selector': 'header', 'x-no-cache': 'true' });
    expect(target.text).toContain('SITE HEADER BANNER');
    expect(target.text).not.toContain('Durable crawling means');
    const removed = await read(`/r/${site.url}/article`, { 'x-remove-selector': 'article', 'x-no-cache': 'true' });
    expect(removed.text).not.toContain('Durable crawling means');
    const html = JSON.parse((await read(`/r/${site.url}/article`, { 'x-return-format': 'html', accept: 'application/json' })).text);
    expect(html.data.content).toMatch(/^<!doctype html>/i);
    const summaries = await read(`/r/${site.url}/article`, { 'x-with-links-summary': 'true', 'x-with-images-summary': 'true' });
    expect(summaries.text).toContain(`\n\nLinks/Buttons:\n- [${site.url}/](${site.url}/)\n- [${site.url}/docs](${site.url}/docs)`);
    expect(summaries.text).toMatch(/Images:\n- !\[Image 1\]\(http/);
    const noImages = await read(`/r/${site.url}/base64-images`, { 'x-retain-images': 'none', accept: 'application/json' });
    expect(JSON.parse(noImages.text).data.content).not.toContain('![');
  });

  it('X-No-Cache fetches afresh; without it a second read is answered from the cache', async () => {
    const fetches = () => site.requests.filter((p) => p === '/final').length;
    await read(`/r/${site.url}/final`);
    const once = fetches();
    await read(`/r/${site.url}/final`);
    expect(fetches()).toBe(once);
    await read(`/r/${site.url}/final`, { 'x-no-cache': 'true' });
    expect(fetches()).toBe(once + 1);
  });

  it('refuses bad input with a 4xx envelope naming it, and a missing key with 401', async () => {
    const cases: [string, Record<string, string>, number, string][] = [
      [`/r/${site.url}/article`, { 'x-timeout': 'soon' }, 400, 'x-timeout'],
      [`/r/${site.url}/article`, { 'x-return-format': 'text' }, 400, 'x-return-format'],
      [`/r/${site.url}/article`, { 'x-target-selector': 'div:has(div:has(div:has(p)))' }, 400, 'X-Target-Selector'],
      [`/r/${site.url}/article`, { 'x-proxy-url': 'socks5://127.0.0.1:1080' }, 400, 'x-proxy-url: SOCKS proxies are not supported'],
      [`/r/${site.url}/article`, { 'x-proxy-url': 'ftp://127.0.0.1:21' }, 400, 'x-proxy-url: X-Proxy-Url is not an http(s)://'],
      ['/r/javascript:alert(1)', {}, 400, 'Invalid URL'],
      // Refused by the router before the route: the path itself does not decode.
      ['/r/%zz', {}, 400, 'Bad Request'],
      // The router leaves the query string alone; the encoded URL's query is decoded with it.
      ['/r/http%3A%2F%2Fexample.com%2F?q=%zz', {}, 400, 'the url is not valid percent-encoding'],
      ['/r/http%3A%2F%2Fexample.com%2F%00', {}, 400, 'url'],
    ];
    for (const [path, headers, status, named] of cases) {
      const res = await read(path, headers);
      expect(res.status, path).toBe(status);
      expect(JSON.parse(res.text), `${path} ${JSON.stringify(headers)}`).toMatchObject({ success: false, error: expect.stringContaining(named) });
    }
    expect((await read(`/r/${site.url}/article`, {}, false)).status).toBe(401);
  });
});

describe('X-Proxy-Url', () => {
  const credentials = { username: 'reader', password: 'pr0xy-s3cret' };
  let proxy: CountingProxy;
  let db: Db;
  let temporal: Connection;
  let proxied: (path: string, headers?: Record<string, string>) => ReturnType<typeof read>;
  let teamId: string;

  beforeAll(async () => {
    proxy = await startCountingProxy({ credentials });
    db = createDb(databaseUrl, { maxConnections: 2 });
    temporal = await Connection.connect({ address: temporalAddress });
    // A team of its own, so its jobs are these tests' alone.
    const proxyKey = await createKeyWithCli(databaseUrl, 'compat-reader-proxy');
    teamId = (await db.selectFrom('teams').select('id').where('name', '=', 'compat-reader-proxy').executeTakeFirstOrThrow()).id;
    proxied = async (path, headers = {}) => {
      const res = await fetch(`${apiUrl}${path}`, { headers: { authorization: `Bearer ${proxyKey}`, 'x-proxy-url': proxy.url, ...headers } });
      return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
    };
  });

  afterAll(async () => {
    await proxy?.close();
    await db?.destroy();
    await temporal?.close();
  });

  it('reads the page through the caller’s proxy with its credentials, in either engine, and keeps them out of every row', async () => {
    const before = site.requests.length;
    const text = await proxied(`/r/${site.url}/article`);
    expect(text.status).toBe(200);
    expect(text.text).toContain('Durable crawling means a crash never loses a page');
    expect(proxy.requests).toEqual([`${site.url}/article`]);
    // Read again: fetched again, since the page cache would not know what the proxy sees.
    expect((await proxied(`/r/${site.url}/article`)).text).toBe(text.text);
    expect(proxy.requests).toEqual([`${site.url}/article`, `${site.url}/article`]);

    // A screenshot takes the browser: the page and what it loads go through the proxy as well.
    const shot = await proxied(`/r/${site.url}/article`, { 'x-return-format': 'screenshot', accept: 'application/json' });
    expect(shot.status).toBe(200);
    expect(proxy.requests.filter((url) => url === `${site.url}/article`)).toHaveLength(3);
    // Whatever else the site served meanwhile (the page's images) came through the proxy too.
    expect(site.requests.slice(before).filter((path) => !proxy.requests.includes(`${site.url}${path}`))).toEqual([]);
    expect(proxy.unauthorized).toBe(0);

    for (const answer of [text, shot]) expect(answer.text).not.toContain(credentials.password);
    const jobs = await db.selectFrom('jobs').selectAll().where('team_id', '=', teamId).execute();
    expect(jobs.length).toBeGreaterThanOrEqual(2);
    const documents = await db.selectFrom('documents').selectAll().where('team_id', '=', teamId).execute();
    for (const row of [...jobs, ...documents]) {
      expect(JSON.stringify(row)).not.toContain(credentials.password);
      expect(JSON.stringify(row)).not.toContain('sealedProxy');
    }
    // The workflow's input carries the proxy sealed, never in plain form.
    const history = await new WorkflowClient({ connection: temporal }).getHandle(jobs[0]!.workflow_id!).fetchHistory();
    const input = (history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads ?? []).map((p) => Buffer.from(p.data ?? []).toString());
    expect(input.join('')).toContain('"sealedProxy"');
    expect(input.join('')).not.toContain(credentials.password);
  });

  it('reads the results of /s/ through it', async () => {
    proxy.reset();
    const json = JSON.parse((await proxied('/s/durable+crawling', { accept: 'application/json' })).text);
    expect(json.data[0]).toMatchObject({ title: 'Durable Crawling' });
    expect(proxy.requests).toContain(`${site.url}/article`);
    expect(proxy.unauthorized).toBe(0);
  });
});

describe('GET /s/<query>', () => {
  it("searches the team's pages and reads each result, numbered as Jina numbers them", async () => {
    const text = await read('/s/durable+crawling');
    expect(text.status).toBe(200);
    expect(text.text).toMatch(/^\[1\] Title: Durable Crawling\n\n\[1\] URL Source: http/);
    expect(text.text).toContain('[1] Markdown Content:\n# Durable Crawling');
    const json = JSON.parse((await read('/s/durable%20crawling', { accept: 'application/json' })).text);
    expect(json).toMatchObject({ code: 200, status: 20000 });
    expect(json.data.length).toBeGreaterThan(0);
    expect(json.data.length).toBeLessThanOrEqual(5);
    expect(json.data[0]).toMatchObject({ title: 'Durable Crawling', content: expect.stringContaining('Durable crawling means') });
    expect((await read('/s/%zz')).status).toBe(400);
    // Found by the route fuzz: a NUL reached Postgres, which cannot store it, as a 500.
    expect(await read('/s/%00', { accept: 'application/json' })).toMatchObject({ status: 400, text: expect.stringContaining('query') });
  });
});
