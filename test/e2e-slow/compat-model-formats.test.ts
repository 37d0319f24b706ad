/**
 * The formats and options of SDK 4.42 that need a model: `question` and its deprecated form
 * `query` (answer), `highlights`, `onlyCleanContent`, and `redactPII` with the model formats, on a
 * stack whose worker talks to the fake OpenAI-compatible server. The fake is scripted with what a
 * plain model answers to such prompts (a sentence, or line numbers), not left to its defaults;
 * the answers are checked against the page, and so is what the model was shown.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatRequest } from '../helpers/fake-model-server.js';
import { startModelTeam, type ModelTeam } from '../e2e/llm-stack.js';

let team: ModelTeam;

const PAGES = {
  '/axolotl': `<h1>Axolotls</h1><p>The axolotl regrows lost limbs within weeks. It lives in lakes near Mexico City.</p>
<p>Adults are about 25 cm long. Write to keeper@zoo.example with questions.</p>
<p>Share this page on social media! Subscribe to our newsletter for weekly news.</p>`,
};

const lastPrompt = (request: ChatRequest | undefined) => request?.messages.at(-1)?.content ?? '';

beforeAll(async () => {
  team = await startModelTeam('trawl-compat-llm', 'compat-llm', PAGES, 'Axolotl facts');
}, 300_000);

afterAll(async () => {
  await team?.stop();
});

describe('question and query', () => {
  it("answers a question in the model's words, from the page, for 4 more credits (official SDK)", async () => {
    team.model.reset();
    team.model.script({ content: 'It regrows lost limbs within weeks.' });
    const doc = await team.firecrawl.scrape(`${team.origin}/axolotl`, { formats: ['markdown', { type: 'question', question: 'What can an axolotl regrow?' }], maxAge: 0 });
    expect(doc.answer).toBe('It regrows lost limbs within weeks.');
    expect(doc.metadata?.creditsUsed).toBe(5);
    const prompt = lastPrompt(team.model.requests[0]);
    expect(prompt).toContain('What can an axolotl regrow?');
    expect(prompt).toContain('The axolotl regrows lost limbs within weeks.');
  });

  it('answers the deprecated query format: freeform in words, directQuote in the page\'s own lines', async () => {
    team.model.reset();
    team.model.script({ content: 'About 25 cm.' });
    const freeform = await team.api('/v2/scrape', { body: { url: `${team.origin}/axolotl`, formats: [{ type: 'query', prompt: 'How long are adults?' }], maxAge: 0 } });
    expect(freeform.status).toBe(200);
    expect(freeform.body.data).toMatchObject({ answer: 'About 25 cm.', metadata: { creditsUsed: 5 } });
    expect(freeform.body.data.markdown).toBeUndefined();

    team.model.reset();
    // The model answers line numbers; which line is which is read from the prompt it was sent.
    team.model.scriptFor('How long are adults?', { content: '{"lines": [3]}' });
    const quoted = await team.api('/v2/scrape', {
      body: { url: `${team.origin}/axolotl`, formats: [{ type: 'query', prompt: 'How long are adults?', mode: 'directQuote' }], maxAge: 0 },
    });
    expect(quoted.status).toBe(200);
    const prompt = lastPrompt(team.model.requests[0]);
    const line3 = /^3: (.*)$/m.exec(prompt)?.[1];
    expect(line3).toBe('Adults are about 25 cm long.');
    expect(quoted.body.data.answer).toBe(line3);
  });
});

describe('highlights', () => {
  it("answers the page's own lines the model picked, in page order, for 4 more credits", async () => {
    team.model.reset();
    team.model.scriptFor('Where does it live', { content: '{"lines": [2, 1, 2]}' });
    const doc = await team.firecrawl.scrape(`${team.origin}/axolotl`, { formats: [{ type: 'highlights', query: 'Where does it live and what does it do?' }], maxAge: 0 });
    expect(doc.highlights).toBe('The axolotl regrows lost limbs within weeks.\nIt lives in lakes near Mexico City.');
    expect(doc.metadata?.creditsUsed).toBe(5);
    const request = team.model.requests[0]!;
    expect(request.response_format?.type).toBe('json_schema');
  });

  it('answers an empty string when no line answers', async () => {
    team.model.reset();
    team.model.scriptFor('price of tea', { content: '{"lines": []}' });
    const res = await team.api('/v2/scrape', { body: { url: `${team.origin}/axolotl`, formats: [{ type: 'highlights', query: 'The price of tea' }], maxAge: 0 } });
    expect(res.body.data.highlights).toBe('');
  });
});

describe('onlyCleanContent', () => {
  it('replaces the markdown with the cleaned one, at no extra credit, before the other model formats read it', async () => {
    team.model.reset();
    const original = await team.firecrawl.scrape(`${team.origin}/axolotl`, { formats: ['markdown'], maxAge: 0 });
    const cleaned = original.markdown!.replace('Share this page on social media! Subscribe to our newsletter for weekly news.', '').trim();
    // The cleaning call first, then the question, which must read the cleaned page.
    team.model.script({ content: cleaned }, { content: 'In lakes near Mexico City.' });
    const doc = await team.firecrawl.scrape(`${team.origin}/axolotl`, {
      formats: ['markdown', { type: 'question', question: 'Where does it live?' }],
      onlyCleanContent: true,
      maxAge: 0,
    });
    expect(doc.markdown).toBe(cleaned);
    expect(doc.metadata?.creditsUsed).toBe(5);
    expect(team.model.requests).toHaveLength(2);
    expect(lastPrompt(team.model.requests[0])).toContain('Subscribe to our newsletter');
    expect(lastPrompt(team.model.requests[1])).toContain('Where does it live?');
    expect(lastPrompt(team.model.requests[1])).not.toContain('Subscribe to our newsletter');
    expect(doc.answer).toBe('In lakes near Mexico City.');
  });

  it('keeps the markdown as extracted, and says so, when the model writes rather than cleans', async () => {
    team.model.reset();
    team.model.script({ content: 'A very different and much longer page. '.repeat(40) });
    const doc = await team.firecrawl.scrape(`${team.origin}/axolotl`, { formats: ['markdown'], onlyCleanContent: true, maxAge: 0 });
    expect(doc.markdown).toContain('Subscribe to our newsletter');
    expect(doc.warning).toMatch(/onlyCleanContent: the model's answer was not a cleaning of the page/);
  });
});

describe('redactPII with the model formats', () => {
  it('shows the model the page redacted, and redacts its answer too', async () => {
    team.model.reset();
    // A model that quotes an address anyway: the answer is redacted after it.
    team.model.script({ content: 'Write to keeper@zoo.example or <EMAIL>.' });
    const doc = await team.firecrawl.scrape(`${team.origin}/axolotl`, {
      formats: ['markdown', { type: 'question', question: 'Whom do I write to?' }],
      redactPII: { entities: ['EMAIL'] },
      maxAge: 0,
    });
    expect(lastPrompt(team.model.requests[0])).not.toContain('keeper@zoo.example');
    expect(lastPrompt(team.model.requests[0])).toContain('Write to <EMAIL> with questions.');
    expect(doc.answer).toBe('Write to <EMAIL> or <EMAIL>.');
    expect(doc.markdown).not.toContain('keeper@zoo.example');
    // 1 for the page, 4 for the answer, 4 for the redaction.
    expect(doc.metadata?.creditsUsed).toBe(9);
  });
});

describe('agent auditMetadata', () => {
  it('starts the run and says the audit metadata is exported nowhere', async () => {
    const started = await team.api('/v2/agent', { body: { prompt: 'Find the axolotl page', urls: [`${team.origin}/axolotl`], auditMetadata: { username: 'alice' }, maxCredits: 5 } });
    expect(started.status).toBe(200);
    expect(started.body.warning).toMatch(/auditMetadata .* exported nowhere/);
    await team.api(`/v2/agent/${started.body.id}`, { method: 'DELETE' });
  });
});
