/**
 * The sandbox host: a child process of the worker that runs a session's `node` code, each run in
 * a fresh isolated-vm isolate (its own V8 heap, no Node APIs at all). The worker starts it with
 * Node's permission model (no file system beyond this module's code, no child processes, no
 * worker threads), an empty environment, and nothing but an IPC channel; see client.ts.
 *
 * Inside the isolate the code sees `page` (and `console`): every page method is a message to the
 * worker, which runs it on the session's real Playwright page only if it is on the allowlist.
 * Plain JavaScript, so the host needs no loader (and no file access a loader would need).
 *
 * Messages in:  {type: 'run', id, code, timeoutMs, memoryMb, outputBytes}
 *               {type: 'reply', id, callId, ok, value, error}
 * Messages out: {type: 'call', id, callId, method, args}
 *               {type: 'done', id, stdout, stderr, result, exitCode, killed, truncated}
 */
import { createRequire } from 'node:module';

const ivm = createRequire(import.meta.url)('isolated-vm');

/** Runs in the isolate before the user's code: `page`, its locators and `console`, over two host functions. */
const PRELUDE = `
const call = globalThis.__call; delete globalThis.__call;
const out = globalThis.__out; delete globalThis.__out;
const invoke = (method, args) => call.apply(undefined, [method, JSON.stringify(args === undefined ? [] : args)], { result: { promise: true, copy: true } }).then((text) => text === undefined ? undefined : JSON.parse(text));
const show = (v) => typeof v === 'string' ? v : (() => { try { return JSON.stringify(v); } catch { return String(v); } })();
const log = (stream) => (...parts) => out.applySync(undefined, [stream, parts.map(show).join(' ') + '\\n']);
globalThis.console = { log: log(1), info: log(1), debug: log(1), warn: log(2), error: log(2) };
const source = (fn) => { if (typeof fn === 'string') return fn; if (typeof fn === 'function') return '(' + String(fn) + ')'; throw new TypeError('evaluate takes a function or a string'); };
function locator(chain) {
  const on = (method) => (...args) => invoke('locator.' + method, [chain, ...args]);
  return Object.freeze({
    click: on('click'), fill: on('fill'), type: on('type'), press: on('press'), check: on('check'), hover: on('hover'),
    textContent: on('textContent'), innerText: on('innerText'), innerHTML: on('innerHTML'), inputValue: on('inputValue'),
    getAttribute: on('getAttribute'), isVisible: on('isVisible'), count: on('count'), waitFor: on('waitFor'),
    allTextContents: on('allTextContents'),
    first: () => locator([...chain, { nth: 0 }]), last: () => locator([...chain, { nth: -1 }]),
    nth: (i) => locator([...chain, { nth: Number(i) }]), locator: (s) => locator([...chain, { css: String(s) }]),
  });
}
globalThis.page = Object.freeze({
  goto: (url, options) => invoke('goto', [String(url), options]),
  click: (s, o) => invoke('click', [String(s), o]), fill: (s, v) => invoke('fill', [String(s), String(v)]),
  type: (s, t) => invoke('type', [String(s), String(t)]), press: (s, k) => invoke('press', [String(s), String(k)]),
  waitForSelector: (s, o) => invoke('waitForSelector', [String(s), o]), waitForTimeout: (ms) => invoke('waitForTimeout', [Number(ms)]),
  evaluate: (fn, arg) => invoke('evaluate', [source(fn), arg]),
  content: () => invoke('content'), title: () => invoke('title'), url: () => invoke('url'),
  screenshot: () => invoke('screenshot'), goBack: () => invoke('goBack'), reload: () => invoke('reload'),
  locator: (s) => locator([{ css: String(s) }]),
});
`;

const calls = new Map();
let nextCall = 0;

function send(message) {
  process.send?.(message);
}

process.on('message', (message) => {
  if (message?.type === 'run') void run(message);
  if (message?.type === 'reply') {
    const pending = calls.get(message.callId);
    calls.delete(message.callId);
    if (pending) (message.ok ? pending.resolve : pending.reject)(message.ok ? message.value : new Error(String(message.error)));
  }
});
// The worker going away ends the host: nothing may outlive it.
process.on('disconnect', () => process.exit(0));

async function run({ id, code, timeoutMs, memoryMb, outputBytes }) {
  const streams = { 1: '', 2: '' };
  let truncated = false;
  const write = (stream, text) => {
    const room = outputBytes - streams[1].length - streams[2].length;
    if (room <= 0) return void (truncated = true);
    if (text.length > room) truncated = true;
    streams[stream] += text.slice(0, room);
  };
  const isolate = new ivm.Isolate({ memoryLimit: memoryMb });
  /** Why the isolate was disposed under the code: `time` from the timer, else its memory limit. */
  let killedBy;
  const timer = setTimeout(() => {
    killedBy = 'time';
    isolate.dispose();
  }, timeoutMs);
  let result;
  let exitCode = 0;
  try {
    const context = await isolate.createContext();
    await context.global.set('__call', new ivm.Reference((method, args) =>
      new Promise((resolve, reject) => {
        const callId = nextCall++;
        calls.set(callId, { resolve, reject });
        send({ type: 'call', id, callId, method, args });
      })));
    await context.global.set('__out', new ivm.Reference((stream, text) => write(stream, text)));
    await context.eval(PRELUDE);
    const value = await context.eval(`(async () => {\n${code}\n})().then((v) => v === undefined ? undefined : JSON.stringify(v))`, {
      promise: true,
      timeout: timeoutMs,
    });
    if (value !== undefined) result = String(value);
  } catch (err) {
    exitCode = 1;
    if (isolate.isDisposed) killedBy ??= 'memory';
    else if (/timed out/.test(String(err))) killedBy = 'time';
    // The reason is short and always said, even when the code's own output filled the budget.
    if (killedBy) streams[2] += `Killed: the ${killedBy} limit was reached\n`;
    else write(2, `${(err && err.stack) || String(err)}\n`);
  } finally {
    clearTimeout(timer);
    if (!isolate.isDisposed) isolate.dispose();
  }
  if (result !== undefined && result.length > outputBytes) {
    result = result.slice(0, outputBytes);
    truncated = true;
  }
  const killed = killedBy !== undefined;
  send({ type: 'done', id, stdout: streams[1], stderr: streams[2], result, exitCode: killed ? 137 : exitCode, killed, truncated });
}
