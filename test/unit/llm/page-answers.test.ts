/** llm/page-answers.ts without a server: the lines a page is cut into and what a picked answer returns. */
import { describe, expect, it } from 'vitest';
import type { ModelClient } from '../../../llm/model-client.js';
import { pageLines, pickLines } from '../../../llm/page-answers.js';

const MARKDOWN = '# Axolotls\n\nThe axolotl regrows limbs. It lives in Mexico! Is it rare? Yes.\n\n---\n\n- Eats worms\n- 25 cm long';

/** A model that answers the line numbers it is given and records the prompt. */
function picking(lines: number[]) {
  const prompts: string[] = [];
  const client: ModelClient = {
    model: 'test',
    generateText: () => Promise.reject(new Error('not used')),
    generateJson: <T>(call: { prompt: string }) => {
      prompts.push(call.prompt);
      return Promise.resolve({ object: { lines } as T, usage: { inputTokens: 1, outputTokens: 1 } });
    },
    ping: () => Promise.resolve(),
  };
  return { client, prompts };
}

describe('page lines', () => {
  it('cuts paragraphs into sentences, keeps headings and list items, drops rules', () => {
    expect(pageLines(MARKDOWN)).toEqual(['# Axolotls', 'The axolotl regrows limbs.', 'It lives in Mexico!', 'Is it rare?', 'Yes.', '- Eats worms', '- 25 cm long']);
  });

  it('returns the picked lines in page order, once each, ignoring numbers the page does not have', async () => {
    const { client, prompts } = picking([6, 1, 1, 99]);
    const { value, warning } = await pickLines(client, { markdown: MARKDOWN, question: 'what does it do?', url: 'https://x.test/', purpose: 'highlights' });
    expect(value).toBe('The axolotl regrows limbs.\n- 25 cm long');
    expect(warning).toBeUndefined();
    expect(prompts[0]).toContain('1: The axolotl regrows limbs.');
  });

  it('reads a long page from its beginning and says so', async () => {
    const { client, prompts } = picking([0]);
    const long = Array.from({ length: 50 }, (_, i) => `Sentence number ${i} is here.`).join(' ');
    const { warning } = await pickLines(client, { markdown: long, question: 'q', url: 'u', purpose: 'answer', maxChars: 200 });
    expect(warning).toMatch(/answer comes from its first part/);
    expect(prompts[0]).not.toContain('Sentence number 49');
  });
});
