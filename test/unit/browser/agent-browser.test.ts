/** The `bash` language of a session execute: agent-browser commands, parsed without a shell. */
import { describe, expect, it } from 'vitest';
import { CommandRefused, MAX_COMMANDS, parseAgentBrowser, splitWords } from '../../../contracts/agent-browser.js';

describe('agent-browser commands', () => {
  it('parses a script of commands, by line and joined with &&, with or without the agent-browser prefix', () => {
    expect(parseAgentBrowser("agent-browser open https://example.com\nsnapshot -i && click @e5\nfill @e3 'hello world'\n# a comment\npress Enter")).toEqual([
      { op: 'open', url: 'https://example.com' },
      { op: 'snapshot', interactive: true },
      { op: 'click', target: { ref: 'e5' } },
      { op: 'fill', target: { ref: 'e3' }, text: 'hello world' },
      { op: 'press', key: 'Enter' },
    ]);
  });

  it('takes CSS selectors, quoted text, waits, scrolls and reads', () => {
    expect(parseAgentBrowser('click "#buy .now"\ntype input[name=q] two words\nwait 500\nwait #done\nscroll down 300\nget text h1\nget url\neval document.title')).toEqual([
      { op: 'click', target: { selector: '#buy .now' } },
      { op: 'type', target: { selector: 'input[name=q]' }, text: 'two words' },
      { op: 'wait', ms: 500 },
      { op: 'waitFor', target: { selector: '#done' } },
      { op: 'scroll', direction: 'down', pixels: 300 },
      { op: 'get', what: 'text', target: { selector: 'h1' } },
      { op: 'get', what: 'url' },
      { op: 'eval', script: 'document.title' },
    ]);
  });

  it.each([
    ['a semicolon', 'open https://a.test; id'],
    ['a pipe', 'snapshot | cat'],
    ['a redirect', 'snapshot > /tmp/out'],
    ['an input redirect', 'fill @e1 < /etc/passwd'],
    ['command substitution', 'open $(whoami)'],
    ['command substitution in double quotes', 'fill @e1 "$(id)"'],
    ['a variable', 'open $HOME'],
    ['backticks', 'open `id`'],
    ['an or-list', 'click @e1 || id'],
    ['a background job', 'click @e1 & id'],
    ['an unknown command', 'curl http://169.254.169.254/'],
    ['an unterminated quote', "fill @e1 'oops"],
  ])('refuses %s, before anything runs', (_name, script) => {
    expect(() => parseAgentBrowser(script)).toThrow(CommandRefused);
  });

  it('keeps shell characters inside single quotes as text', () => {
    expect(parseAgentBrowser("fill @e2 'a; b | c > d $(e) `f`'")).toEqual([{ op: 'fill', target: { ref: 'e2' }, text: 'a; b | c > d $(e) `f`' }]);
    expect(parseAgentBrowser('fill @e2 "costs $5"')).toEqual([{ op: 'fill', target: { ref: 'e2' }, text: 'costs $5' }]);
  });

  it('bounds the script: the number of commands, a selector, a wait', () => {
    expect(() => parseAgentBrowser('get url\n'.repeat(MAX_COMMANDS + 1))).toThrow(/at most/);
    expect(() => parseAgentBrowser(`click ${'a'.repeat(1001)}`)).toThrow(/longer than/);
    expect(() => parseAgentBrowser('wait 600000')).toThrow(/at most/);
    expect(() => parseAgentBrowser('')).toThrow(/no command/);
  });

  it('splits a long line of quotes and escapes in one pass', () => {
    // 300,000 characters: a splitter that rescanned per quote would outlast the test's timeout.
    const words = splitWords(`fill @e1 ${'"a\\"b" '.repeat(50_000)}`);
    expect(words[0]).toHaveLength(50_002);
    expect(words[0]![2]).toBe('a"b');
    expect(() => splitWords(`fill @e1 ${"'a".repeat(100_001)}`)).toThrow(CommandRefused);
  });
});
