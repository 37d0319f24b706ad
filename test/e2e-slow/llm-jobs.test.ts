/**
 * Model-driven jobs on the real stack: extract (plain and `/*` URLs, sources, merge failures,
 * timeout, cancel, a failing page), crawls with a `prompt`, monitor goals judged by the model, and an
 * interact prompt carried out with browser actions. The worker's model client talks to
 * the fake OpenAI-compatible server, which answers schema fields from labelled values in the page
 * ("company: Acme"), so merged answers follow the pages.
 */
import type Firecrawl from '@mendable/firecrawl-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/api-client.js';
import { closedPort } from '../helpers/closed-port.js';
import { startFakeSmtp, type FakeSmtp } from '../helpers/fake-smtp.js';
import { startMonitorSite } from '../helpers/monitor-site.js';
import type { FakeModelServer } from '../helpers/fake-model-server.js';
import { waitForJobEnd } from '../helpers/wait-for-job.js';
import { startWebhookReceiver } from '../helpers/webhook-receiver.js';
import { e2eContext } from '../e2e/context.js';
import { startModelTeam, type ModelTeam } from '../e2e/llm-stack.js';

const { apiUrl: modellessUrl, apiKey: modellessKey } = e2eContext();

/** A company site whose pages state the facts the schema asks for. */
const PAGES: Record<string, string> = {
  '/': '<h1>Acme</h1><a href="/about">About</a> <a href="/products/">Products</a>',
  '/about': '<h1>About Acme</h1><p>company: Acme Corp</p><p>founded: 1999</p>',
  '/products/': '<h1>Products</h1><a href="/products/widget">Widget</a> <a href="/products/gadget">Gadget</a> <a href="/about">About</a>',
  '/products/widget': '<h1>Widget</h1><p>products: Widget</p>',
  '/products/gadget': '<h1>Gadget</h1><p>products: Gadget</p>',
  '/offer': '<h1>Offer</h1><p>A lamp.</p><button onclick="document.getElementById(\'price\').textContent = \'Price: 42 EUR\'">Show price</button><p id="price"></p>',
};

const SCHEMA = {
  type: 'object',
  properties: { company: { type: 'string' }, founded: { type: 'number' }, products: { type: 'array', items: { type: 'string' } } },
  required: ['company', 'products'],
};

let stack: ModelTeam;
let model: FakeModelServer;
let origin: string;
let api: ReturnType<typeof apiClient>;
let firecrawl: Firecrawl;

let smtp: FakeSmtp;

beforeAll(async () => {
  smtp = await startFakeSmtp();
  stack = await startModelTeam('trawl-llm-jobs', 'llm-jobs-team', PAGES, undefined, { SMTP_URL: smtp.url, SMTP_FROM: 'Trawl <monitors@trawl.test>' });
  ({ model, origin, api, firecrawl } = stack);
}, 300_000);

afterAll(async () => {
  await stack?.stop();
  await smtp?.close();
});

describe('extract', () => {
  it('merges the answers of several pages into one that matches the schema, with sources, credits and tokens (SDK waiter)', async () => {
    model.reset();
    const result = await firecrawl.extract({
      urls: [`${origin}/products/widget`, `${origin}/about`, `${origin}/products/gadget`],
      prompt: 'the company and its products',
      schema: SCHEMA,
      showSources: true,
      pollInterval: 1,
    });
    expect(result.status).toBe('completed');
    expect(result.data).toEqual({ company: 'Acme Corp', founded: 1999, products: ['Widget', 'Gadget'] });
    expect(result.sources).toEqual({
      company: [`${origin}/about`],
      founded: [`${origin}/about`],
      products: [`${origin}/products/widget`, `${origin}/products/gadget`],
    });
    // Each page costs as a scrape with a json format: 1 + 4.
    expect(result.creditsUsed).toBe(15);
    const status = await api(`/v2/extract/${result.id}`);
    expect(status.body.tokensUsed).toBe(model.tokensServed());
    expect(status.body.expiresAt).toEqual(expect.any(String));
    // Pages are asked with nothing required: a page states only some of the answer.
    const pageSchema = model.requests[0]!.response_format?.json_schema?.schema as Record<string, unknown>;
    expect(pageSchema.required).toBeUndefined();
    expect(model.requests[0]!.messages.at(-1)!.content).toContain('the company and its products');
  });

  it("answers the SDK's v1 client too: extract, and asyncExtract then getExtractStatus", async () => {
    const v1 = firecrawl.v1;
    const urls = [`${origin}/about`];
    const waited = await v1.extract(urls, { prompt: 'the company', schema: { type: 'object', properties: { company: { type: 'string' } }, required: ['company'] } });
    expect(waited).toMatchObject({ success: true, data: { company: 'Acme Corp' } });
    const started = await v1.asyncExtract(urls, { prompt: 'the company', schema: { type: 'object', properties: { company: { type: 'string' } }, required: ['company'] } });
    const id = 'id' in started ? String(started.id) : '';
    if (!id) throw new Error(JSON.stringify(started));
    let status: { status?: string; data?: unknown } = {};
    for (let i = 0; i < 300 && status.status !== 'completed'; i++) {
      status = await v1.getExtractStatus(id);
      if (status.status !== 'completed') await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(status).toMatchObject({ status: 'completed', data: { company: 'Acme Corp' } });
  });

  it('expands a /* URL through map to the pages under it, and reports invalid URLs (startExtract/getExtractStatus)', async () => {
    model.reset();
    const started = await firecrawl.startExtract({
      urls: [`${origin}/products/*`, 'not a url'],
      schema: { type: 'object', properties: { products: { type: 'array', items: { type: 'string' } } } },
    });
    expect(started).toMatchObject({ success: true, id: expect.any(String), invalidURLs: ['not a url'] });
    const done = await waitForJobEnd(api, 'extract', started.id!);
    expect(done.status).toBe('completed');
    expect([...(done.data.products as string[])].sort()).toEqual(['Gadget', 'Widget']);
    const status = await firecrawl.getExtractStatus(started.id!);
    expect(status).toMatchObject({ success: true, status: 'completed', data: done.data });
  });

  it('without urls, reads the pages a search for the prompt finds in the team index', async () => {
    model.reset();
    // The index holds what the team stored with text: a scrape of the about page.
    expect((await api('/v2/scrape', { body: { url: `${origin}/about`, formats: ['markdown'] } })).status).toBe(200);
    const started = await api('/v2/extract', {
      body: { prompt: 'Find the company name. query: Acme', schema: { type: 'object', properties: { company: { type: 'string' } }, required: ['company'] } },
    });
    expect(started.status).toBe(200);
    const done = await waitForJobEnd(api, 'extract', started.body.id);
    expect(done, JSON.stringify(done)).toMatchObject({ status: 'completed', data: { company: 'Acme Corp' } });
    // The model turned the prompt into keywords first.
    expect(model.requests[0]!.messages.at(-1)!.content).toContain('Request: Find the company name');
  });

  it('sends its webhooks: started and completed, and no page events', async () => {
    const hooks = await startWebhookReceiver();
    try {
      const res = await api('/v2/extract', { body: { urls: [`${origin}/about`, `${origin}/products/widget`], prompt: 'the company', webhook: { url: hooks.url } } });
      await hooks.waitFor('extract.completed');
      expect(hooks.deliveries.map((d) => d.body.type)).toEqual(['extract.started', 'extract.completed']);
      expect(hooks.deliveries.every((d) => d.body.id === res.body.id)).toBe(true);
    } finally {
      await hooks.close();
    }
  });

  it('keeps going when one page fails, and fails with the schema errors when the merge does not match', async () => {
    const dead = `http://127.0.0.1:${await closedPort()}/`;
    const ok = await api('/v2/extract', { body: { urls: [dead, `${origin}/about`], schema: { type: 'object', properties: { company: { type: 'string' } } } } });
    const done = await waitForJobEnd(api, 'extract', ok.body.id);
    expect(done).toMatchObject({ status: 'completed', data: { company: 'Acme Corp' }, creditsUsed: 5 });

    // No page states `products`, which the schema requires: no `{}` success.
    const bad = await api('/v2/extract', { body: { urls: [`${origin}/about`], schema: SCHEMA } });
    const failed = await waitForJobEnd(api, 'extract', bad.body.id);
    expect(failed).toMatchObject({ success: false, status: 'failed', data: [] });
    expect(failed.error).toMatch(/does not match the schema.*products/);
  });

  it('fails at its timeout, and can be cancelled', async () => {
    model.reset();
    model.script({ content: '{}', delayMs: 8_000 }, { content: '{}', delayMs: 8_000 });
    const slow = await api('/v2/extract', { body: { urls: [`${origin}/about`], prompt: 'anything', timeout: 2_000 } });
    const timedOut = await waitForJobEnd(api, 'extract', slow.body.id);
    expect(timedOut).toMatchObject({ status: 'failed', error: expect.stringContaining('timeout') });

    model.reset();
    model.script({ content: '{}', delayMs: 8_000 });
    const started = await api('/v1/extract', { body: { urls: [`${origin}/products/widget`], prompt: 'anything' } });
    const cancel = await api(`/v1/extract/${started.body.id}`, { method: 'DELETE' });
    expect(cancel.body.status).toBe('cancelled');
    expect((await api(`/v1/extract/${started.body.id}`)).body.status).toBe('cancelled');
  });

  it('refuses what it cannot do before starting anything', async () => {
    model.reset();
    const badSchema = await api('/v2/extract', { body: { urls: [`${origin}/about`], prompt: 'MARK-422', schema: { type: 'nonsense' } } });
    expect(badSchema.status).toBe(422);
    expect(badSchema.body.code).toBe('INVALID_JSON_SCHEMA');
    const nothing = await api('/v2/extract', { body: { schema: SCHEMA } });
    expect(nothing.status).toBe(400);
    const strict = await api('/v2/extract', { body: { urls: ['not a url'], prompt: 'MARK-400', ignoreInvalidURLs: false } });
    expect(strict.status).toBe(400);
    expect(strict.body.details.invalidURLs).toEqual(['not a url']);
    const modelless = await apiClient(modellessUrl, modellessKey)('/v2/extract', { body: { urls: [`${origin}/about`], prompt: 'x' } });
    expect(modelless.status).toBe(400);
    expect(modelless.body.code).toBe('LLM_NOT_CONFIGURED');
    // Nothing refused reached the model (a late call of an earlier test's run may still arrive).
    expect(model.requests.filter((r) => JSON.stringify(r.messages).includes('MARK-'))).toEqual([]);
    const unknown = await api('/v2/extract/00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
  });
});

describe('change tracking, json mode', () => {
  const tracking = (tag: string) => ({
    type: 'changeTracking',
    modes: ['json'],
    schema: { type: 'object', properties: { price: { type: 'number' }, plan: { type: 'string' } } },
    tag,
  });
  const scrape = async (body: Record<string, unknown>) => {
    const res = await api('/v2/scrape', { body: { maxAge: 0, ...body } });
    expect(res.status).toBe(200);
    return res.body.data;
  };

  it('reports the fields whose extracted values changed, reading the old page only once, per tag', async () => {
    PAGES['/pricing'] = '<h1>Pricing</h1><p>plan: Pro</p><p>price: 10</p>';
    const url = `${origin}/pricing`;
    // Counted by content: a late call of an earlier test's cancelled run must not count.
    const pricingCalls = () => model.requests.filter((r) => JSON.stringify(r.messages).includes('Pricing'));
    model.reset();
    const first = await scrape({ url, formats: ['markdown', tracking('t')] });
    expect(first.changeTracking.changeStatus).toBe('new');
    expect(first.changeTracking.json).toBeUndefined();
    expect(first.metadata.creditsUsed).toBe(5);
    expect(pricingCalls()).toHaveLength(1);

    model.reset();
    const same = await scrape({ url, formats: ['markdown', tracking('t')] });
    expect(same.changeTracking).toMatchObject({ changeStatus: 'same', json: {} });
    // The stored extraction answers for unchanged markdown: no model call, no model credits.
    expect(pricingCalls()).toHaveLength(0);
    expect(same.metadata.creditsUsed).toBe(1);

    PAGES['/pricing'] = '<h1>Pricing</h1><p>plan: Pro</p><p>price: 12</p>';
    model.reset();
    const changed = await scrape({ url, formats: ['markdown', tracking('t')] });
    expect(changed.changeTracking.changeStatus).toBe('changed');
    expect(changed.changeTracking.json).toEqual({ price: { previous: 10, current: 12 } });
    expect(pricingCalls()).toHaveLength(1);

    const otherTag = await scrape({ url, formats: ['markdown', tracking('other')] });
    expect(otherTag.changeTracking.changeStatus).toBe('new');
  });

  it('works through v1 changeTrackingOptions, with a default prompt when neither schema nor prompt is given', async () => {
    PAGES['/news'] = '<h1>News</h1><p>headline: Launch</p>';
    model.reset();
    const res = await api('/v1/scrape', { body: { url: `${origin}/news`, formats: ['markdown', 'changeTracking'], changeTrackingOptions: { modes: ['json'] } } });
    expect(res.status).toBe(200);
    expect(res.body.data.changeTracking.changeStatus).toBe('new');
    expect(model.requests[0]!.messages.at(-1)!.content).toContain('the facts a reader would want to know changed');
  });

  it('refuses an invalid schema with 422 before fetching', async () => {
    const res = await api('/v2/scrape', { body: { url: `${origin}/pricing`, formats: ['markdown', { type: 'changeTracking', modes: ['json'], schema: { type: 12 } }] } });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('INVALID_JSON_SCHEMA');
  });
});

describe('crawl with a prompt', () => {
  it('derives its options from the prompt, with options stated in the body winning', async () => {
    model.reset();
    model.script({ content: JSON.stringify({ includePaths: ['^/products/'], limit: 50, sitemap: 'skip', delay: 500 }) });
    const crawl = await firecrawl.crawl(`${origin}/products/`, { prompt: 'only the product pages', limit: 2, pollInterval: 1 });
    expect(crawl.status).toBe('completed');
    const urls = crawl.data.map((d) => new URL(d.metadata!.sourceURL!).pathname).sort();
    // limit 2 from the body, not 50 from the model; /about is linked but not under /products/.
    expect(urls).toHaveLength(2);
    expect(urls.every((u) => u.startsWith('/products/'))).toBe(true);
    expect(model.requests[0]!.messages.at(-1)!.content).toContain('only the product pages');
    const job = await api(`/v2/crawl/${crawl.id}`);
    // delay 500 s is past the crawl schema's bound: dropped, and said so.
    expect(job.body.warning).toContain('delay');
  });

  it('answers Firecrawl\'s 400 when the model cannot turn the prompt into options', async () => {
    model.reset();
    model.script({ content: 'no' }, { content: 'no' }, { content: 'no' }, { content: 'no' });
    const res = await api('/v2/crawl', { body: { url: `${origin}/`, prompt: 'gibberish' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Failed to process natural language prompt. Please try rephrasing.');
  });

  it('answers LLM_NOT_CONFIGURED at once without a model', async () => {
    const res = await apiClient(modellessUrl, modellessKey)('/v2/crawl', { body: { url: `${origin}/`, prompt: 'the blog' } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('LLM_NOT_CONFIGURED');
  });
});

describe('monitor goal judging', () => {
  it('judges each change against the goal, records the verdict and reason, and emails them', async () => {
    const site = await startMonitorSite();
    try {
      site.set('/blog', '<h1>Blog</h1><p>Latest post: Winter sale starts soon.</p>');
      const created = await api('/v2/monitor', {
        body: {
          name: 'Blog',
          schedule: { text: 'hourly' },
          goal: 'Tell me when a new blog post is published',
          targets: [{ type: 'scrape', urls: [site.url('/blog')] }],
          notification: { email: { recipients: ['editor@example.com'], includeDiffs: true } },
        },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      expect(created.body.data).toMatchObject({ judgeEnabled: true, goal: 'Tell me when a new blog post is published' });
      expect(created.body.data.warning).toBeUndefined();
      const id = created.body.data.id;
      const check = async () => {
        const run = await api(`/v2/monitor/${id}/run`, { method: 'POST' });
        for (;;) {
          const res = await api(`/v2/monitor/${id}/checks/${run.body.data.id}`);
          if (!['queued', 'running'].includes(res.body.data.status)) return res.body.data;
          await new Promise((r) => setTimeout(r, 250));
        }
      };
      const verdict = {
        meaningful: true,
        confidence: 'high',
        reason: 'A new post was published.',
        meaningfulChanges: [{ type: 'changed', before: 'Winter sale starts soon.', after: 'Spring collection is here.', reason: 'New post' }],
      };
      model.scriptFor('Goal of the monitor', { content: JSON.stringify(verdict) }, { content: JSON.stringify(verdict) });
      const first = await check();
      const welcome = await smtp.waitFor(`check-${first.id}@trawl.monitor`);
      expect(welcome).toMatchObject({ from: 'monitors@trawl.test', to: ['editor@example.com'] });
      expect(welcome.raw).toContain('Subject: [Trawl] Blog: 1 new');
      site.set('/blog', '<h1>Blog</h1><p>Latest post: Spring collection is here.</p>');
      const asked = model.requests.length;
      const second = await check();
      expect(second.judged).toBe(true);
      expect(second.pages[0]).toMatchObject({ status: 'changed', judgment: verdict });
      const prompt = model.requests.slice(asked).map((r) => r.messages.at(-1)?.content ?? '').find((c) => c.includes('Goal of the monitor'));
      expect(prompt).toContain('Tell me when a new blog post is published');
      expect(prompt).toContain('+Latest post: Spring collection is here.');
      // The email names the change, the goal's verdict and (includeDiffs) the diff.
      const mail = await smtp.waitFor(`check-${second.id}@trawl.monitor`);
      expect(mail.raw).toContain('Subject: [Trawl] Blog: 1 changed');
      expect(mail.raw).toContain('Matters for the goal: A new post was published.');
      expect(mail.raw).toContain('+Latest post: Spring collection is here.');
      // A check that finds nothing sends nothing; an email setting without recipients is a 400.
      const quiet = await check();
      expect(quiet.summary).toMatchObject({ same: 1 });
      expect(smtp.messages.filter((m) => m.raw.includes(`check-${quiet.id}@`))).toEqual([]);
      const noRecipients = await api(`/v2/monitor/${id}`, { method: 'PATCH', body: { notification: { email: { recipients: [] } } } });
      expect(noRecipients).toMatchObject({ status: 400, body: { success: false, error: expect.stringContaining('recipient') } });
      await api(`/v2/monitor/${id}`, { method: 'DELETE' });
    } finally {
      await site.close();
    }
  });

  it('judges a search target\'s new results on their title and description', async () => {
    const site = await startMonitorSite();
    try {
      // The stack searches the team's own pages: scraping one puts it in the index.
      site.set('/launch', '<h1>Quokka launch notes</h1><p>The quokka release is out today.</p>');
      expect((await api('/v2/scrape', { body: { url: site.url('/launch') } })).status).toBe(200);
      const created = await api('/v2/monitor', {
        body: { name: 'Launches', schedule: { text: 'hourly' }, goal: 'Tell me about quokka releases', targets: [{ type: 'search', queries: ['quokka'] }] },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const id = created.body.data.id;
      const verdict = { meaningful: true, confidence: 'high', reason: 'A release was announced.', meaningfulChanges: [] };
      model.scriptFor('Goal of the monitor: Tell me about quokka releases', { content: JSON.stringify(verdict) });
      const asked = model.requests.length;
      const run = await api(`/v2/monitor/${id}/run`, { method: 'POST' });
      let check: any;
      for (;;) {
        check = (await api(`/v2/monitor/${id}/checks/${run.body.data.id}`)).body.data;
        if (!['queued', 'running'].includes(check.status)) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(check.pages).toEqual([expect.objectContaining({ url: site.url('/launch'), status: 'new', judgment: verdict })]);
      const prompt = model.requests.slice(asked).map((r) => r.messages.at(-1)?.content ?? '').find((c) => c.includes('Goal of the monitor'));
      // The result's title and description, which only the search snippet carries (nothing was scraped).
      expect(prompt).toContain('The quokka release is out today');
      await api(`/v2/monitor/${id}`, { method: 'DELETE' });
    } finally {
      await site.close();
    }
  });
});

describe('interact with a prompt', () => {
  it('lets the model act on the scraped page step by step, and bills the session at the prompt rate', async () => {
    model.reset();
    const doc = await firecrawl.scrape(`${origin}/offer`, { formats: ['markdown'] });
    const jobId = doc.metadata!.scrapeId!;
    // The model clicks the only control, then answers from what the page shows after the click.
    model.scriptFor('Task: What does the lamp cost?', { content: JSON.stringify({ action: 'click', ref: 'e1' }) }, { content: JSON.stringify({ action: 'finish', answer: '42 EUR' }) });
    const tokensLeft = async () => (await api('/v2/team/token-usage')).body.data.remainingTokens as number;
    const before = await tokensLeft();
    const res = await firecrawl.interact(jobId, { prompt: 'What does the lamp cost?' });
    expect(res).toMatchObject({ success: true, exitCode: 0, output: '42 EUR' });
    // Its model calls are in the team's token ledger, as every model feature's are (the shared model
    // may also have served another file's leftover work meanwhile, hence at most what it served).
    const recorded = before - (await tokensLeft());
    expect(recorded).toBeGreaterThan(0);
    expect(recorded).toBeLessThanOrEqual(model.tokensServed());
    const asked = model.requests.filter((r) => JSON.stringify(r.messages).includes('What does the lamp cost?'));
    expect(asked).toHaveLength(2);
    expect(JSON.stringify(asked[0]!.messages)).toContain('button \\"Show price\\" [ref=e1]');
    expect(JSON.stringify(asked[0]!.messages)).not.toContain('Price: 42 EUR');
    // The second step saw the page as the click left it.
    expect(JSON.stringify(asked[1]!.messages)).toContain('Price: 42 EUR');
    const stopped = await firecrawl.stopInteraction(jobId);
    expect(stopped).toMatchObject({ success: true, creditsBilled: 7 });
  });
});
