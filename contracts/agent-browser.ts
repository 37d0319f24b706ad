/**
 * The `bash` language of an execute: Firecrawl's agent-browser commands (`open <url>`,
 * `click @e5`, `fill @e3 "text"`, `snapshot -i`, …), one per line or joined with `&&`, each
 * optionally prefixed `agent-browser`. Trawl parses them itself and runs them through Playwright:
 * there is no shell, so anything a shell would interpret (`;`, `|`, `>`, `<`, `$(…)`, backticks,
 * `||`, a lone `&`, `$VAR`) is refused with the reason rather than guessed at. Linear in the input.
 */
import { MAX_SELECTOR_CHARS, MAX_WAIT_MS, type BrowserOp, type Target } from './browser-ops.js';

export class CommandRefused extends Error {}

/** Commands accepted in one execute. */
export const MAX_COMMANDS = 100;

/** Splits one line into words with shell-like quoting, refusing shell syntax outside single quotes. */
export function splitWords(line: string): string[][] {
  const commands: string[][] = [[]];
  let word: string | undefined;
  const push = () => {
    if (word !== undefined) commands[commands.length - 1]!.push(word);
    word = undefined;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new CommandRefused('unterminated single quote');
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let text = '';
      for (i++; i < line.length && line[i] !== '"'; i++) {
        const d = line[i]!;
        if (d === '`' || (d === '$' && /[({A-Za-z_]/.test(line[i + 1] ?? ''))) {
          throw new CommandRefused('shell expansion ($, `) is not supported: there is no shell; quote the text in single quotes');
        }
        if (d === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1]!)) text += line[++i];
        else text += d;
      }
      if (i >= line.length) throw new CommandRefused('unterminated double quote');
      word = (word ?? '') + text;
    } else if (c === '&' && line[i + 1] === '&') {
      push();
      commands.push([]);
      i++;
    } else if (';|<>&`'.includes(c) || (c === '$' && /[({A-Za-z_]/.test(line[i + 1] ?? ''))) {
      throw new CommandRefused(`'${c}' is shell syntax, and there is no shell: give one agent-browser command per line (or join them with &&)`);
    } else if (c === '\\' && i + 1 < line.length) {
      word = (word ?? '') + line[++i];
    } else if (c === ' ' || c === '\t') {
      push();
    } else {
      word = (word ?? '') + c;
    }
  }
  push();
  return commands.filter((words) => words.length > 0);
}

function target(word: string | undefined, command: string): Target {
  if (word === undefined || word === '') throw new CommandRefused(`${command}: needs an element (@e5 from snapshot, or a CSS selector)`);
  if (/^@?e\d{1,6}$/.test(word)) return { ref: word.replace(/^@/, '') };
  if (word.length > MAX_SELECTOR_CHARS) throw new CommandRefused(`${command}: the selector is longer than ${MAX_SELECTOR_CHARS} characters`);
  return { selector: word };
}

function text(words: string[], from: number, command: string): string {
  if (words.length <= from) throw new CommandRefused(`${command}: needs the text`);
  return words.slice(from).join(' ');
}

const SIMPLE = { back: 'back', forward: 'forward', reload: 'reload', screenshot: 'screenshot' } as const;
const ON_ELEMENT = ['click', 'dblclick', 'hover', 'check', 'uncheck'] as const;

function parseCommand(words: string[]): BrowserOp | undefined {
  const [name, ...args] = words[0] === 'agent-browser' ? words.slice(1) : words;
  if (name === undefined) throw new CommandRefused('agent-browser: needs a command');
  if (name === 'close') return undefined;
  if (name in SIMPLE) return { op: SIMPLE[name as keyof typeof SIMPLE] };
  if ((ON_ELEMENT as readonly string[]).includes(name)) return { op: name as (typeof ON_ELEMENT)[number], target: target(args[0], name) };
  switch (name) {
    case 'open':
    case 'goto':
    case 'navigate':
      if (!args[0]) throw new CommandRefused(`${name}: needs a URL`);
      return { op: 'open', url: args[0] };
    case 'fill':
    case 'type':
      return { op: name, target: target(args[0], name), text: text(args, 1, name) };
    case 'select':
      return { op: 'select', target: target(args[0], name), value: text(args, 1, name) };
    case 'press':
    case 'key':
      if (!args[0]) throw new CommandRefused(`${name}: needs a key, e.g. Enter`);
      return { op: 'press', key: args[0] };
    case 'scroll':
      return scrollOp(args);
    case 'wait':
      return waitOp(args);
    case 'snapshot':
      return { op: 'snapshot', interactive: args.includes('-i') || args.includes('--interactive') };
    case 'get':
      return getOp(args);
    case 'eval':
      return { op: 'eval', script: text(args, 0, name) };
    default:
      throw new CommandRefused(`unknown command '${name}': supported are open, click, dblclick, hover, fill, type, select, check, uncheck, press, scroll, wait, snapshot, get, screenshot, eval, back, forward, reload, close`);
  }
}

function scrollOp(args: string[]): BrowserOp {
  const direction = args[0] ?? 'down';
  if (direction !== 'up' && direction !== 'down' && direction !== 'left' && direction !== 'right') {
    throw new CommandRefused('scroll: the direction is up, down, left or right');
  }
  const pixels = args[1] === undefined ? undefined : Number(args[1]);
  if (pixels !== undefined && !(Number.isInteger(pixels) && pixels > 0 && pixels <= 100_000)) throw new CommandRefused('scroll: pixels must be a positive integer');
  return { op: 'scroll', direction, ...(pixels !== undefined && { pixels }) };
}

function waitOp(args: string[]): BrowserOp {
  const [what] = args;
  if (what !== undefined && /^\d+$/.test(what)) {
    const ms = Number(what);
    if (ms > MAX_WAIT_MS) throw new CommandRefused(`wait: at most ${MAX_WAIT_MS} ms`);
    return { op: 'wait', ms };
  }
  return { op: 'waitFor', target: target(what, 'wait') };
}

function getOp(args: string[]): BrowserOp {
  const [what, element] = args;
  if (what === 'title' || what === 'url') return { op: 'get', what };
  if (what === 'text' || what === 'html' || what === 'value') return { op: 'get', what, target: target(element, `get ${what}`) };
  throw new CommandRefused('get: one of text, html, value (with an element), title or url');
}

/** The ops of a whole `bash` execute; a refused command refuses the whole script, before anything runs. */
export function parseAgentBrowser(script: string): BrowserOp[] {
  const ops: BrowserOp[] = [];
  let count = 0;
  for (const raw of script.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    for (const words of splitWords(line)) {
      if (++count > MAX_COMMANDS) throw new CommandRefused(`at most ${MAX_COMMANDS} commands per execute`);
      const op = parseCommand(words);
      if (op) ops.push(op);
    }
  }
  if (count === 0) throw new CommandRefused('no command given');
  return ops;
}
