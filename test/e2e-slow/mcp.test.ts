/**
 * A third-party client: the Firecrawl MCP server (npm `firecrawl-mcp`) over stdio, with
 * FIRECRAWL_API_URL pointed at Trawl, driven by the MCP SDK's client as an assistant would:
 * list its tools, then scrape, parse a local file, map, crawl and check the crawl, search with the
 * search tool's own defaults, drive its eight monitor tools and its interact tools, against fixture sites; with a
 * model, the query format, the agent tools over a thread, and the credit-usage tool.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../scripts/paths.js';
import { startCrawlSite, type CrawlSite } from '../helpers/crawl-site.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { startPageServer, type PageServer } from '../helpers/page-server.js';
import { makeDocx } from '../helpers/office-fixtures.js';
import { createKeyWithCli } from '../helpers/run-admin.js';
import { e2eContext } from '../e2e/context.js';
import { say, startModelStack, type ModelStack } from '../e2e/llm-stack.js';

const { apiUrl, apiKey, databaseUrl } = e2eContext();
let client: Client;
let site: FixtureSite;
let crawlSite: CrawlSite;
const stderr: string[] = [];

/** The MCP server over stdio, pointed at a Trawl, and an MCP client connected to it. */
async function connectMcp(url: string, key: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['node_modules/firecrawl-mcp/dist/index.js'],
    cwd: projectRoot,
    env: { ...(process.env as Record<string, string>), FIRECRAWL_API_URL: url, FIRECRAWL_API_KEY: key },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
  const connected = new Client({ name: 'trawl-e2e', version: '1.0.0' });
  await connected.connect(transport);
  return connected;
}

/** A tool's text answer, parsed when it is JSON. */
async function call(name: string, args: Record<string, unknown>, via: Client = client): Promise<{ isError: boolean; text: string; json?: any }> {
  const result = (await via.callTool({ name, arguments: args })) as { isError?: boolean; content: { type: string; text?: string }[] };
  const text = result.content.map((c) => c.text ?? '').join('\n');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { isError: result.isError === true, text, json };
}

beforeAll(async () => {
  [site, crawlSite] = await Promise.all([startFixtureSite(), startCrawlSite()]);
  client = await connectMcp(apiUrl, apiKey);
}, 120_000);

afterAll(async () => {
  await client?.close();
  await Promise.all([site?.close(), crawlSite?.close()]);
});

describe('firecrawl-mcp against Trawl', () => {
  it('lists its tools', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['firecrawl_scrape', 'firecrawl_map', 'firecrawl_crawl', 'firecrawl_check_crawl_status', 'firecrawl_search', 'firecrawl_extract']));
  });

  it('scrapes a page to markdown', async () => {
    const res = await call('firecrawl_scrape', { url: `${site.url}/article`, formats: ['markdown'] });
    expect(res.isError, `${res.text}\n${stderr.join('')}`).toBe(false);
    expect(res.json?.markdown ?? res.text).toContain('# Durable Crawling');
  });

  it('parses a local Word document with firecrawl_parse (multipart to /v2/parse)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-mcp-parse-'));
    try {
      const path = join(dir, 'minutes.docx');
      writeFileSync(path, makeDocx({ heading: 'Meeting minutes', paragraphs: ['Parsed through the MCP server.'] }));
      const res = await call('firecrawl_parse', { filePath: path, formats: ['markdown'] });
      expect(res.isError, res.text).toBe(false);
      expect(res.text).toContain('# Meeting minutes');
      expect(res.text).toContain('Parsed through the MCP server.');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("searches with the search tool's default arguments (web and alexandria, domainTools, toolDetail)", async () => {
    // With a key the tool sends sources ["web", "alexandria"], domainTools true and toolDetail
    // "compact" (firecrawl-mcp 3.26); the article scraped above is in the team's index.
    const res = await call('firecrawl_search', { query: 'Durable Crawling' });
    expect(res.isError, `${res.text}\n${stderr.join('')}`).toBe(false);
    expect(res.json.success).toBe(true);
    expect(res.json.data.web.map((r: { url: string }) => r.url)).toContain(`${site.url}/article`);
    // Nothing pretends the tool catalogue ran: no tools, and the warning says why.
    expect(res.json.data).not.toHaveProperty('alexandria');
    expect(res.json).not.toHaveProperty('tools');
    expect(res.json.warning).toMatch(/Alexandria tool catalogue .* no tools were matched/);
  });

  it('maps a site', async () => {
    const res = await call('firecrawl_map', { url: crawlSite.url('/') });
    expect(res.isError, res.text).toBe(false);
    expect(res.text).toContain(crawlSite.url('/docs/a'));
  });

  it('crawls a site and checks the crawl until it completes', async () => {
    const started = await call('firecrawl_crawl', { url: crawlSite.url('/'), limit: 5, sitemap: 'skip' });
    expect(started.isError, started.text).toBe(false);
    const id = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/.exec(started.text)?.[0];
    expect(id, started.text).toBeDefined();
    let status = '';
    for (let i = 0; i < 100 && !status.includes('completed'); i++) {
      const res = await call('firecrawl_check_crawl_status', { id });
      expect(res.isError, res.text).toBe(false);
      status = res.text;
      await new Promise((r) => setTimeout(r, 300));
    }
    expect(status).toContain('completed');
  });
});

describe('firecrawl-mcp monitor tools against Trawl', () => {
  it('opens an interact session from a URL, continues it by scrapeId, and stops it (firecrawl_interact, firecrawl_interact_stop)', async () => {
    const pages = await startPageServer({ '/shop': '<h1>Shop</h1><p>One product.</p><button id="reveal" onclick="document.getElementById(\'price\').textContent = \'Price: 42 EUR\'">Show price</button><p id="price"></p>' });
    try {
      const opened = await call('firecrawl_interact', { url: `${pages.origin}/shop`, code: "await page.click('#reveal'); return await page.locator('#price').textContent();" });
      expect(opened.isError, opened.text).toBe(false);
      expect(opened.json).toMatchObject({ success: true, exitCode: 0, result: '"Price: 42 EUR"', scrapeId: expect.any(String) });
      const again = await call('firecrawl_interact', { scrapeId: opened.json.scrapeId, code: "get text '#price'", language: 'bash' });
      expect(again.json).toMatchObject({ success: true, stdout: 'Price: 42 EUR' });
      const stopped = await call('firecrawl_interact_stop', { scrapeId: opened.json.scrapeId });
      expect(stopped.isError, stopped.text).toBe(false);
      expect(stopped.text).toMatch(/success/);
    } finally {
      await pages.close();
    }
  });

  it('creates, lists, gets, runs, reads checks, updates and deletes a monitor', async () => {
    const created = await call('firecrawl_monitor_create', { page: `${site.url}/article`, goal: 'Tell me when the article changes', scheduleText: 'every 30 minutes' });
    expect(created.isError, `${created.text}\n${stderr.join('')}`).toBe(false);
    const id = created.json.data.id as string;
    expect(created.json.data).toMatchObject({ status: 'active', schedule: { cron: '*/30 * * * *', timezone: 'UTC' }, targets: [{ type: 'scrape' }] });

    const listed = await call('firecrawl_monitor_list', { limit: 50 });
    expect(listed.isError, listed.text).toBe(false);
    expect(listed.json.data.map((m: { id: string }) => m.id)).toContain(id);
    expect((await call('firecrawl_monitor_get', { id })).json.data.id).toBe(id);

    const run = await call('firecrawl_monitor_run', { id });
    expect(run.isError, run.text).toBe(false);
    const checkId = run.json.data.id as string;
    let check: any;
    for (let i = 0; i < 240; i++) {
      check = await call('firecrawl_monitor_check', { id, checkId });
      expect(check.isError, check.text).toBe(false);
      if (!['queued', 'running'].includes(check.json.data.status)) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(check.json.data).toMatchObject({ status: 'completed', summary: { totalPages: 1, new: 1 }, pages: [{ status: 'new' }] });
    const checks = await call('firecrawl_monitor_checks', { id, status: 'completed' });
    expect(checks.isError, checks.text).toBe(false);
    expect(checks.json.data.map((c: { id: string }) => c.id)).toEqual([checkId]);

    const updated = await call('firecrawl_monitor_update', { id, body: { status: 'paused' } });
    expect(updated.isError, updated.text).toBe(false);
    expect(updated.json.data.status).toBe('paused');
    const deleted = await call('firecrawl_monitor_delete', { id });
    expect(deleted.isError, deleted.text).toBe(false);
    expect((await call('firecrawl_monitor_get', { id })).isError).toBe(true);
  });
});

describe('firecrawl-mcp scrape with the query format, against a Trawl with a model', () => {
  let stack: ModelStack;
  let pages: PageServer;
  let withModel: Client;

  beforeAll(async () => {
    [stack, pages] = await Promise.all([startModelStack('trawl-mcp-llm'), startPageServer({ '/facts': '<h1>Facts</h1><p>The meeting is on Tuesday at noon in room 4.</p>' }, 'Facts')]);
    withModel = await connectMcp(stack.stack.apiUrl, await createKeyWithCli(databaseUrl, 'mcp-llm'));
  }, 300_000);

  afterAll(async () => {
    await withModel?.close();
    await Promise.all([stack?.stop(), pages?.close()]);
  });

  it('answers the question in queryOptions (sent as {type: "query", prompt, mode: "freeform"})', async () => {
    stack.model.reset();
    stack.model.script({ content: 'On Tuesday at noon, in room 4.' });
    const res = await call('firecrawl_scrape', { url: `${pages.origin}/facts`, formats: ['query'], queryOptions: { prompt: 'When and where is the meeting?' } }, withModel);
    expect(res.isError, `${res.text}\n${stderr.join('')}`).toBe(false);
    expect(res.json.answer).toBe('On Tuesday at noon, in room 4.');
    expect(stack.model.requests[0]!.messages.at(-1)!.content).toContain('The meeting is on Tuesday at noon in room 4.');
  });

  it('runs an agent in chat mode and continues its thread; a follow-up without mode keeps chat (firecrawl_agent, firecrawl_agent_status)', async () => {
    const done = async (id: string) => {
      for (let i = 0; i < 100; i++) {
        const status = await call('firecrawl_agent_status', { id }, withModel);
        expect(status.isError, status.text).toBe(false);
        if (status.json.status !== 'processing') return status.json;
        await new Promise((r) => setTimeout(r, 200));
      }
      throw new Error(`agent ${id} still running`);
    };
    stack.model.reset();
    stack.model.script(say({ tool: 'scrape', url: `${pages.origin}/facts` }), say({ tool: 'finish', result: 'Tuesday at noon, room 4.' }));
    const first = await call('firecrawl_agent', { prompt: 'When is the meeting?', urls: [`${pages.origin}/facts`], mode: 'chat' }, withModel);
    expect(first.isError, `${first.text}\n${stderr.join('')}`).toBe(false);
    expect(first.json).toMatchObject({ success: true, threadTurn: 1 });
    expect(await done(first.json.id)).toMatchObject({ status: 'completed', mode: 'chat', message: 'Tuesday at noon, room 4.' });

    stack.model.script(say({ tool: 'finish', result: 'Room 4.' }));
    const next = await call('firecrawl_agent', { prompt: 'Which room again?', threadId: first.json.threadId }, withModel);
    expect(next.json).toMatchObject({ success: true, threadId: first.json.threadId, threadTurn: 2 });
    expect(await done(next.json.id)).toMatchObject({ status: 'completed', mode: 'chat', message: 'Room 4.' });
    const prompt = String(stack.model.requests.at(-1)!.messages.at(-1)!.content);
    expect(prompt).toContain('Turn 1 asked: When is the meeting?');
    // The follow-up kept the first turn's urls as well as its mode.
    expect(prompt).toContain(`Start URLs: ${pages.origin}/facts`);
  });

  it('reports the credit balance and its history (firecrawl_credit_usage)', async () => {
    const current = await call('firecrawl_credit_usage', {}, withModel);
    expect(current.isError, current.text).toBe(false);
    expect(current.json).toMatchObject({ remainingCredits: expect.any(Number), planCredits: expect.any(Number) });
    const history = await call('firecrawl_credit_usage', { view: 'historical' }, withModel);
    expect(history.isError, history.text).toBe(false);
    expect(JSON.stringify(history.json)).toContain('creditsUsed');
  });
});
