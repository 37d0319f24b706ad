/**
 * Live browser sessions (issue #36), through the official SDK unmodified and plain HTTP: a
 * standalone session driven with agent-browser commands and with sandboxed `node` code, a scrape
 * continued with interact, profiles that carry cookies and storage across scrapes and sessions,
 * the escape attempts that must all fail, and another team's ids answering 404.
 */
import Firecrawl from '@mendable/firecrawl-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/api-client.js';
import { startPageServer, type PageServer } from '../helpers/page-server.js';
import { createKeyWithCli, runAdmin } from '../helpers/run-admin.js';
import { e2eContext } from './context.js';

const { apiUrl, databaseUrl } = e2eContext();
let site: PageServer;
let firecrawl: Firecrawl;
let api: ReturnType<typeof apiClient>;
let other: ReturnType<typeof apiClient>;

const PAGES = {
  '/shop': `<h1>Shop</h1><p>Our one product.</p><button id="reveal" onclick="document.getElementById('price').textContent = 'Price: 42 EUR'">Show price</button><p id="price"></p>
    <input id="q" placeholder="Search the shop"><button id="go" onclick="document.getElementById('echo').textContent = 'You searched ' + document.getElementById('q').value">Search</button><p id="echo"></p>`,
  '/account': `<h1>Account</h1><p id="state">checking</p><button id="signin" onclick="document.cookie = 'session=abc123; max-age=3600; path=/'; localStorage.setItem('theme', 'dark'); render()">Sign in</button>
    <script>function render() { document.getElementById('state').textContent = document.cookie.includes('session=abc123') ? 'Welcome back (theme ' + localStorage.getItem('theme') + ')' : 'Please sign in'; } render();</script>`,
};

beforeAll(async () => {
  site = await startPageServer(PAGES);
  const key = await createKeyWithCli(databaseUrl, 'browser-sessions');
  firecrawl = new Firecrawl({ apiKey: key, apiUrl });
  api = apiClient(apiUrl, key);
  other = apiClient(apiUrl, await createKeyWithCli(databaseUrl, 'browser-sessions-other'));
});

afterAll(async () => {
  await site?.close();
});

/** The session's replay once it has `count` frames: an execute's frame is stored just after its answer. */
async function replayWith(id: string, count: number) {
  for (let i = 0; ; i++) {
    const replay = await api(`/v2/browser/${id}/replay`);
    if (replay.body.pageCount >= count || i === 50) return replay;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('a standalone session through the SDK', () => {
  it('opens, runs agent-browser commands by ref, lists, replays and deletes, billed for its time', async () => {
    const created = await firecrawl.browser({ ttl: 120, activityTtl: 60 });
    expect(created).toMatchObject({ success: true, id: expect.any(String), expiresAt: expect.any(String) });
    const id = created.id!;
    const opened = await firecrawl.browserExecute(id, { code: `agent-browser open ${site.origin}/shop\nsnapshot -i`, language: 'bash' });
    expect(opened).toMatchObject({ success: true, exitCode: 0, killed: false });
    const ref = /button "Show price" \[ref=(e\d+)\]/.exec(opened.stdout ?? '')?.[1];
    expect(ref, opened.stdout).toBeDefined();
    const clicked = await firecrawl.browserExecute(id, { code: `click @${ref} && get text '#price'`, language: 'bash' });
    expect(clicked.stdout).toContain('Price: 42 EUR');

    const listed = await firecrawl.listBrowsers({ status: 'active' });
    expect(listed.sessions?.map((s) => s.id)).toContain(id);
    const replay = await replayWith(id, 2);
    expect(replay.body.pageCount).toBe(2);
    expect(replay.body.pages[1]).toMatchObject({ pageId: '1', pageUrl: `${site.origin}/shop`, action: 'bash' });
    expect((await api(replay.body.pages[1].url, { key: null })).status).toBe(401);

    const deleted = await firecrawl.deleteBrowser(id);
    expect(deleted).toMatchObject({ success: true, status: 'destroyed' });
    expect(deleted.creditsBilled).toBeGreaterThanOrEqual(2);
    const after = await firecrawl.browserExecute(id, { code: 'get title', language: 'bash' }).catch((err: Error) => err);
    expect(String((after as Error).message ?? after)).toMatch(/destroyed/);
    expect((await api(`/v2/browser/${id}`)).body).toMatchObject({ status: 'destroyed', endReason: 'deleted', creditsBilled: deleted.creditsBilled });
  });

  it('serves replay frames as images to the team only; another team gets 404 for the session and its frames', async () => {
    const { body } = await api('/v2/interact', { body: { ttl: 60 } });
    const id = body.id as string;
    await api(`/v2/interact/${id}/execute`, { body: { code: `open ${site.origin}/shop`, language: 'bash' } });
    await replayWith(id, 1);
    const frame = await api(`/v2/interact/${id}/replay/0`);
    expect(frame.status).toBe(200);
    expect(frame.headers.get('content-type')).toBe('image/jpeg');
    expect((await other(`/v2/browser/${id}`)).status).toBe(404);
    expect((await other(`/v2/browser/${id}/replay/0`)).status).toBe(404);
    expect((await other(`/v2/browser/${id}/execute`, { body: { code: 'get title', language: 'bash' } })).status).toBe(404);
    expect((await other(`/v2/browser/${id}`, { method: 'DELETE' })).status).toBe(404);
    expect((await api(`/v2/browser/${id}`, { method: 'DELETE' })).status).toBe(200);
  });
});

describe('recordSession', () => {
  it('false keeps no replay frames, screenshots included; the default keeps them', async () => {
    const code = `open ${site.origin}/shop\nscreenshot`;
    const [unrecorded, recorded] = await Promise.all([api('/v2/browser', { body: { ttl: 60, recordSession: false } }), api('/v2/browser', { body: { ttl: 60 } })]);
    for (const { body } of [unrecorded, recorded]) {
      expect((await api(`/v2/browser/${body.id}/execute`, { body: { code, language: 'bash' } })).body).toMatchObject({ success: true, exitCode: 0 });
    }
    // The recorded session's frames are stored after its answer; the other's would have been by then.
    expect((await replayWith(recorded.body.id, 2)).body.pageCount).toBe(2);
    expect((await api(`/v2/browser/${unrecorded.body.id}/replay`)).body).toMatchObject({ success: true, pageCount: 0, pages: [] });
    await Promise.all([unrecorded, recorded].map(({ body }) => api(`/v2/browser/${body.id}`, { method: 'DELETE' })));
  });
});

describe('limits', () => {
  it("counts a team's live sessions against its plan's concurrency: one past it is 429, and a deleted one frees its place", async () => {
    const limited = apiClient(apiUrl, await createKeyWithCli(databaseUrl, 'browser-sessions-limited'));
    await runAdmin(databaseUrl, ['teams', 'set', 'browser-sessions-limited', '--concurrency', '1']);
    const first = await limited('/v2/browser', { body: { ttl: 60 } });
    expect(first.status).toBe(200);
    expect(await limited('/v2/browser', { body: { ttl: 60 } })).toMatchObject({ status: 429, body: { success: false, code: 'CONCURRENCY_LIMITED' } });
    expect((await limited(`/v2/browser/${first.body.id}`, { method: 'DELETE' })).status).toBe(200);
    const again = await limited('/v2/browser', { body: { ttl: 60 } });
    expect(again.status).toBe(200);
    await limited(`/v2/browser/${again.body.id}`, { method: 'DELETE' });
  });

  it('refuses out-of-range TTLs, an oversized prompt and unknown keys with 400s naming them', async () => {
    expect((await api('/v2/browser', { body: { ttl: 5 } })).body.error).toMatch(/ttl/);
    expect((await api('/v2/browser', { body: { activityTtl: 4000 } })).body.error).toMatch(/activityTtl/);
    expect((await api('/v2/browser', { body: { nope: 1 } })).status).toBe(400);
    expect((await api('/v2/browser', { body: { profile: { name: '' } } })).status).toBe(400);
  });
});

describe('code, safely', () => {
  let id: string;
  beforeAll(async () => {
    id = (await api('/v2/browser', { body: { ttl: 300 } })).body.id;
  });
  afterAll(async () => {
    await api(`/v2/browser/${id}`, { method: 'DELETE' });
  });
  const run = (code: string, timeout = 10) => api(`/v2/browser/${id}/execute`, { body: { code, language: 'node', timeout } });

  it('runs node code against an allowlisted page: goto, fill, click, evaluate in the page, console and the result', async () => {
    const res = await run(`await page.goto('${site.origin}/shop');
      await page.fill('#q', 'lamps'); await page.click('#go');
      console.log('title:', await page.title());
      return { echo: await page.locator('#echo').textContent(), inPage: await page.evaluate(() => document.querySelectorAll('button').length) };`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, exitCode: 0, killed: false, stdout: 'title: /shop\n' });
    expect(JSON.parse(res.body.result)).toEqual({ echo: 'You searched lamps', inPage: 2 });
  });

  it.each([
    ['process', 'return typeof process'],
    ['require', 'return typeof require'],
    ['fetch', 'return typeof fetch'],
    ['the constructor chain', "return this.constructor.constructor('return typeof process')()"],
    ['a function constructor from a page method', "return page.goto.constructor('return typeof process')()"],
  ])('gives the code no %s', async (_name, code) => {
    const res = await run(code);
    expect(res.body).toMatchObject({ exitCode: 0, result: '"undefined"' });
  });

  it.each([
    ['import()', "return await import('node:fs')"],
    ['a page method outside the allowlist', 'return await page.evaluate.call(null, "1") && await globalThis.page.context()'],
    ['the file system through the page', "await page.goto('file:///etc/passwd')"],
    ['a metadata address', "await page.goto('http://169.254.169.254/latest/meta-data/')"],
  ])('refuses %s', async (_name, code) => {
    const res = await run(code);
    expect(res.body.exitCode).not.toBe(0);
    expect(res.body.error).toEqual(expect.any(String));
  });

  it('stops an infinite loop, a memory bomb and a 100 MB output at their bounds, and the session still works', async () => {
    const loop = await run('while (true) {}', 2);
    expect(loop.body).toMatchObject({ killed: true, exitCode: 137 });
    expect(loop.body.stderr).toContain('time limit');
    const memory = await run("const a = []; while (true) a.push('x'.repeat(1e6) + Math.random());");
    expect(memory.body).toMatchObject({ killed: true });
    expect(memory.body.stderr).toContain('memory limit');
    const output = await run("for (let i = 0; i < 100; i++) console.log('x'.repeat(1024 * 1024));");
    expect(output.body.stdout.length).toBeLessThanOrEqual(1024 * 1024);
    expect(output.body.truncated).toBe(true);
    const after = await run('return await page.url()');
    expect(after.body).toMatchObject({ exitCode: 0 });
  });

  it('refuses bash with shell syntax, and python, as 400s before anything runs', async () => {
    for (const code of ['open http://x.test; id', 'open $(whoami)', 'snapshot | cat', 'snapshot > /tmp/x', 'open `id`']) {
      const res = await api(`/v2/browser/${id}/execute`, { body: { code, language: 'bash' } });
      expect(res.status, code).toBe(400);
      expect(res.body).toMatchObject({ success: false, code: 'BAD_REQUEST' });
    }
    const python = await api(`/v2/browser/${id}/execute`, { body: { code: 'print(1)', language: 'python' } });
    expect(python).toMatchObject({ status: 400, body: { success: false, code: 'UNSUPPORTED_OPTION' } });
    expect(python.body.error).toMatch(/node.*bash/);
  });
});

describe('scrape → interact → stop', () => {
  it('continues in the scraped page: clicks, reads what the click revealed, and stops through the SDK', async () => {
    const doc = await firecrawl.scrape(`${site.origin}/shop`, { formats: ['markdown'] });
    const jobId = doc.metadata!.scrapeId!;
    const first = await firecrawl.interact(jobId, { code: "await page.click('#reveal'); return await page.locator('#price').textContent();" });
    expect(first).toMatchObject({ success: true, exitCode: 0, result: '"Price: 42 EUR"' });
    // The same live page: the price stays revealed for the next execute.
    const second = await firecrawl.interact(jobId, { code: "get text '#price'", language: 'bash' });
    expect(second.stdout).toBe('Price: 42 EUR');
    const stopped = await firecrawl.stopInteraction(jobId);
    expect(stopped).toMatchObject({ success: true });
    expect((await api(`/v2/scrape/${jobId}/interact`, { method: 'DELETE' })).status).toBe(404);
    expect((await other(`/v2/scrape/${jobId}/interact`, { body: { code: 'return 1' } })).status).toBe(404);
  });

  it("starts from the scrape replayed: its URL and its actions, so what the actions did is there", async () => {
    const doc = await firecrawl.scrape(`${site.origin}/shop`, { formats: ['markdown'], actions: [{ type: 'click', selector: '#reveal' }] });
    expect(doc.markdown).toContain('Price: 42 EUR');
    const jobId = doc.metadata!.scrapeId!;
    const read = await firecrawl.interact(jobId, { code: "get text '#price'", language: 'bash' });
    expect(read.stdout).toBe('Price: 42 EUR');
    await firecrawl.stopInteraction(jobId);
  });

  it('answers a prompt without a model with LLM_NOT_CONFIGURED', async () => {
    const doc = await firecrawl.scrape(`${site.origin}/shop`, { formats: ['markdown'] });
    const res = await api(`/v2/scrape/${doc.metadata!.scrapeId}/interact`, { body: { prompt: 'What does it cost?' } });
    expect(res).toMatchObject({ status: 400, body: { success: false, code: 'LLM_NOT_CONFIGURED' } });
    const both = await api(`/v2/scrape/${doc.metadata!.scrapeId}/interact`, { body: { prompt: 'x', code: 'return 1' } });
    expect(both.status).toBe(400);
  });
});

describe('profiles', () => {
  it('carry cookies and localStorage across two scrapes and two sessions, per team', async () => {
    const profile = { name: 'shopper', saveChanges: true };
    const signedIn = await firecrawl.scrape(`${site.origin}/account`, { formats: ['markdown'], profile, actions: [{ type: 'click', selector: '#signin' }] });
    expect(signedIn.markdown).toContain('Welcome back (theme dark)');
    const again = await firecrawl.scrape(`${site.origin}/account`, { formats: ['markdown'], profile: { name: 'shopper', saveChanges: false } });
    expect(again.markdown).toContain('Welcome back (theme dark)');
    const fresh = await firecrawl.scrape(`${site.origin}/account`, { formats: ['markdown'] });
    expect(fresh.markdown).toContain('Please sign in');

    const session = await firecrawl.browser({ ttl: 60, profile });
    const seen = await firecrawl.browserExecute(session.id!, { code: `open ${site.origin}/account && get text '#state'`, language: 'bash' });
    expect(seen.stdout).toContain('Welcome back (theme dark)');
    const set = await firecrawl.browserExecute(session.id!, { code: `eval "localStorage.setItem('theme', 'light')"`, language: 'bash' });
    expect(set).toMatchObject({ success: true, exitCode: 0 });
    await firecrawl.deleteBrowser(session.id!);
    const second = await firecrawl.browser({ ttl: 60, profile: { name: 'shopper', saveChanges: false } });
    const changed = await firecrawl.browserExecute(second.id!, { code: `open ${site.origin}/account && get text '#state'`, language: 'bash' });
    expect(changed.stdout).toContain('Welcome back (theme light)');
    await firecrawl.deleteBrowser(second.id!);

    expect((await api('/v2/browser/profiles')).body.profiles).toEqual([{ name: 'shopper', updatedAt: expect.any(String) }]);
    expect((await other('/v2/browser/profiles')).body.profiles).toEqual([]);
    // Another team's profile of the same name is its own, empty one.
    const theirs = await other('/v2/scrape', { body: { url: `${site.origin}/account`, formats: ['markdown'], profile: { name: 'shopper' } } });
    expect(theirs.body.data.markdown).toContain('Please sign in');
    expect((await other('/v2/browser/profiles/shopper', { method: 'DELETE' })).status).toBe(200);
    expect((await api('/v2/browser/profiles')).body.profiles).toHaveLength(1);
  });
});
