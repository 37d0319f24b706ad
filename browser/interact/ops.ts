/**
 * Carries out one BrowserOp on a live session's page and says what happened as text, the way
 * agent-browser prints it. Every navigation goes through the page's context, and so through the
 * guard proxy: a blocked address comes back as the proxy's 403, which `open` reports as refused.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Locator, Page } from 'playwright-core';
import { refSelector, snapshot } from './snapshot.js';
import { refuseBlocked } from '../../scraper/engines/browser.js';
import { firstLineOf } from '../../lib/errors.js';
import type { BrowserOp, Target } from '../../contracts/browser-ops.js';

export interface OpContext {
  page: Page;
  signal: AbortSignal;
  /** Milliseconds left in the execute. */
  remainingMs(): number;
}

export interface OpResult {
  output: string;
  /** A `screenshot` op's PNG; the caller keeps it as a replay frame. */
  screenshot?: Buffer;
}

export class OpFailed extends Error {}

/** How long an element may take to become actionable before the op fails (the execute's timeout still bounds it). */
const ACTIONABLE_MS = 5_000;
/** Characters of a `get` or `eval` answer kept. */
const OUTPUT_CHARS = 100_000;

function locate(page: Page, target: Target): Locator {
  return page.locator('ref' in target ? refSelector(target.ref) : target.selector).first();
}

function describe(target: Target): string {
  return 'ref' in target ? `@${target.ref}` : target.selector;
}

function cap(text: string): string {
  return text.length > OUTPUT_CHARS ? `${text.slice(0, OUTPUT_CHARS)}\n[truncated]` : text;
}

/** A URL a session may open: http(s) only; the guard proxy decides about its address. */
export function openableUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:/i.test(raw) ? raw : `https://${raw}`);
  } catch {
    throw new OpFailed(`not a URL: ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OpFailed(`only http and https URLs can be opened, not ${url.protocol}`);
  return url.href;
}

/**
 * Navigates through the guard proxy; a target it refused or could not reach is an error, not a
 * 403 or 502 page to read.
 */
export async function navigate(ctx: OpContext, raw: string): Promise<void> {
  const response = await ctx.page.goto(openableUrl(raw), { waitUntil: 'load', timeout: ctx.remainingMs() });
  if (!response) return;
  await refuseBlocked(response).catch((err: unknown) => {
    throw new OpFailed(`${raw}: ${firstLineOf(err)}`);
  });
}

async function open(ctx: OpContext, raw: string): Promise<string> {
  await navigate(ctx, raw);
  return `✓ ${await ctx.page.title()}\n  ${ctx.page.url()}`;
}

async function onElement(ctx: OpContext, op: Extract<BrowserOp, { target: Target }>): Promise<string> {
  const element = locate(ctx.page, op.target);
  const timeout = Math.min(ACTIONABLE_MS, ctx.remainingMs());
  const name = describe(op.target);
  switch (op.op) {
    case 'click':
      await element.click({ timeout });
      break;
    case 'dblclick':
      await element.dblclick({ timeout });
      break;
    case 'hover':
      await element.hover({ timeout });
      break;
    case 'check':
      await element.check({ timeout });
      break;
    case 'uncheck':
      await element.uncheck({ timeout });
      break;
    case 'fill':
      await element.fill(op.text, { timeout });
      break;
    case 'type':
      await element.pressSequentially(op.text, { timeout });
      break;
    case 'select':
      await element.selectOption(op.value, { timeout });
      break;
    case 'waitFor':
      await element.waitFor({ state: 'visible', timeout: ctx.remainingMs() });
      break;
    case 'get':
      return cap(op.what === 'text' ? await element.innerText({ timeout }) : op.what === 'html' ? await element.innerHTML({ timeout }) : await element.inputValue({ timeout }));
  }
  return `✓ ${op.op} ${name}`;
}

export async function runOp(ctx: OpContext, op: BrowserOp): Promise<OpResult> {
  const { page } = ctx;
  switch (op.op) {
    case 'open':
      return { output: await open(ctx, op.url) };
    case 'press':
      await page.keyboard.press(op.key);
      return { output: `✓ press ${op.key}` };
    case 'scroll': {
      const px = op.pixels ?? 600;
      const [x, y] = { up: [0, -px], down: [0, px], left: [-px, 0], right: [px, 0] }[op.direction];
      await page.mouse.wheel(x!, y!);
      return { output: `✓ scroll ${op.direction} ${px}` };
    }
    case 'wait':
      await sleep(Math.min(op.ms, ctx.remainingMs()), undefined, { signal: ctx.signal });
      return { output: `✓ wait ${op.ms}` };
    case 'snapshot':
      return { output: await snapshot(page, op.interactive) };
    case 'screenshot':
      return { output: '✓ screenshot (kept in the session replay)', screenshot: await page.screenshot({ timeout: ctx.remainingMs() }) };
    case 'eval': {
      // Runs in the page, Chromium's sandbox: the same place a scrape's executeJavascript runs.
      const value: unknown = await page.evaluate(op.script);
      return { output: cap(value === undefined ? 'undefined' : typeof value === 'string' ? value : JSON.stringify(value)) };
    }
    case 'back':
    case 'forward':
    case 'reload':
      await page[op.op === 'back' ? 'goBack' : op.op === 'forward' ? 'goForward' : 'reload']({ timeout: ctx.remainingMs() });
      return { output: `✓ ${op.op}\n  ${page.url()}` };
    case 'get':
      if (!('target' in op)) return { output: op.what === 'title' ? await page.title() : page.url() };
      return { output: await onElement(ctx, op) };
    default:
      return { output: await onElement(ctx, op) };
  }
}
