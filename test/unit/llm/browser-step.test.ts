/** A session prompt's step: the model's choice, as an op the session runs. */
import { describe, expect, it } from 'vitest';
import { stepToOp } from '../../../llm/browser-step.js';

describe('browser prompt steps', () => {
  it('turns the model’s choices into ops, naming elements by snapshot ref', () => {
    expect(stepToOp({ action: 'click', ref: '@e4' })).toEqual({ op: 'click', target: { ref: 'e4' } });
    expect(stepToOp({ action: 'fill', ref: 'e2', text: 'lamps' })).toEqual({ op: 'fill', target: { ref: 'e2' }, text: 'lamps' });
    expect(stepToOp({ action: 'open', url: 'https://a.test/' })).toEqual({ op: 'open', url: 'https://a.test/' });
    expect(stepToOp({ action: 'finish', answer: '42 EUR' })).toEqual({ answer: '42 EUR' });
  });

  it('never lets a step name a selector of its own: a ref or nothing', () => {
    expect(() => stepToOp({ action: 'click', ref: 'body *:has(*)' })).toThrow(/ref/);
  });

  it('reads the page again for a choice it cannot use', () => {
    expect(stepToOp({ action: 'dance' })).toEqual({ op: 'snapshot', interactive: false });
  });
});
