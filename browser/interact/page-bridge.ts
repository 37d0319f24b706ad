/**
 * The `page` a session's `node` code holds (sandbox/host.mjs) is a proxy: each call arrives here
 * as a method name and JSON arguments, and runs on the real Playwright page only if it is on this
 * allowlist, with its arguments checked. Everything else (the browser, the context, CDP, routes,
 * the file system through `screenshot({path})` or `setInputFiles`) does not exist for the code.
 */
import type { Locator, Page } from 'playwright-core';
import { z } from 'zod';
import { MAX_SELECTOR_CHARS, MAX_WAIT_MS } from '../../contracts/browser-ops.js';
import { navigate, type OpContext } from './ops.js';

const selector = z.string().min(1).max(MAX_SELECTOR_CHARS);
const text = z.string().max(100_000);
const timeoutOption = z.object({ timeout: z.number().int().min(0).max(MAX_WAIT_MS).optional() }).optional();
const chain = z.array(z.union([z.object({ css: selector }), z.object({ nth: z.number().int().min(-1).max(10_000) })])).min(1).max(20);

/** What a `screenshot` call returns to the code; the image itself is kept as a replay frame. */
export interface BridgeEffects {
  screenshot(image: Buffer): void;
}

function locatorOf(page: Page, steps: z.infer<typeof chain>): Locator {
  let locator: Locator | undefined;
  for (const step of steps) {
    if ('css' in step) locator = locator ? locator.locator(step.css) : page.locator(step.css);
    else if (locator) locator = step.nth === -1 ? locator.last() : locator.nth(step.nth);
  }
  if (!locator) throw new Error('a locator starts with a selector');
  return locator;
}

const LOCATOR_METHODS = {
  click: (l: Locator, t: number) => l.click({ timeout: t }).then(() => undefined),
  check: (l: Locator, t: number) => l.check({ timeout: t }).then(() => undefined),
  hover: (l: Locator, t: number) => l.hover({ timeout: t }).then(() => undefined),
  textContent: (l: Locator, t: number) => l.textContent({ timeout: t }),
  innerText: (l: Locator, t: number) => l.innerText({ timeout: t }),
  innerHTML: (l: Locator, t: number) => l.innerHTML({ timeout: t }),
  inputValue: (l: Locator, t: number) => l.inputValue({ timeout: t }),
  isVisible: (l: Locator) => l.isVisible(),
  count: (l: Locator) => l.count(),
  allTextContents: (l: Locator) => l.allTextContents(),
  waitFor: (l: Locator, t: number) => l.waitFor({ timeout: t }).then(() => undefined),
} as const;

const LOCATOR_WITH_TEXT = {
  fill: (l: Locator, v: string, t: number) => l.fill(v, { timeout: t }),
  type: (l: Locator, v: string, t: number) => l.pressSequentially(v, { timeout: t }),
  press: (l: Locator, v: string, t: number) => l.press(v, { timeout: t }),
  getAttribute: (l: Locator, v: string, t: number) => l.getAttribute(v, { timeout: t }),
} as const;

/** How long a call may wait for its element, within what is left of the execute. */
const ACTIONABLE_MS = 10_000;

export async function bridgeCall(ctx: OpContext, effects: BridgeEffects, method: string, argsJson: string): Promise<unknown> {
  const args: unknown = JSON.parse(argsJson);
  const { page } = ctx;
  const t = Math.min(ACTIONABLE_MS, ctx.remainingMs());
  if (method.startsWith('locator.')) {
    const name = method.slice('locator.'.length);
    const [steps, value] = z.tuple([chain]).rest(z.unknown()).parse(args);
    const locator = locatorOf(page, steps);
    if (name in LOCATOR_METHODS) return LOCATOR_METHODS[name as keyof typeof LOCATOR_METHODS](locator, t);
    if (name in LOCATOR_WITH_TEXT) return LOCATOR_WITH_TEXT[name as keyof typeof LOCATOR_WITH_TEXT](locator, text.parse(value), t);
    throw new Error(`locator.${name} is not available in a session`);
  }
  const [a, b] = z.array(z.unknown()).max(2).parse(args);
  switch (method) {
    case 'goto':
      await navigate(ctx, z.string().parse(a));
      return undefined;
    case 'click':
      return page.click(selector.parse(a), { timeout: t });
    case 'fill':
      return page.fill(selector.parse(a), text.parse(b), { timeout: t });
    case 'type':
      return page.locator(selector.parse(a)).first().pressSequentially(text.parse(b), { timeout: t });
    case 'press':
      return page.press(selector.parse(a), z.string().max(100).parse(b), { timeout: t });
    case 'waitForSelector':
      await page.waitForSelector(selector.parse(a), { timeout: Math.min(timeoutOption.parse(b)?.timeout ?? ctx.remainingMs(), ctx.remainingMs()) });
      return undefined;
    case 'waitForTimeout':
      return page.waitForTimeout(Math.min(z.number().min(0).max(MAX_WAIT_MS).parse(a), ctx.remainingMs()));
    case 'evaluate':
      // In the page: Chromium's renderer sandbox, the same place a scrape's executeJavascript runs.
      return page.evaluate(`(${text.parse(a)})(${JSON.stringify(b ?? null)})`);
    case 'content':
      return page.content();
    case 'title':
      return page.title();
    case 'url':
      return page.url();
    case 'screenshot': {
      effects.screenshot(await page.screenshot({ timeout: ctx.remainingMs() }));
      return 'kept in the session replay';
    }
    case 'goBack':
      await page.goBack({ timeout: ctx.remainingMs() });
      return undefined;
    case 'reload':
      await page.reload({ timeout: ctx.remainingMs() });
      return undefined;
    default:
      throw new Error(`page.${method} is not available in a session`);
  }
}
