/** Actions that act on the page like a user: wait, click, write, press, scroll. */
import { setTimeout as sleep } from 'node:timers/promises';
import { ActionFailed } from './action-error.js';
import type { ActionContext, ActionOf } from './context.js';

/**
 * How long a click waits for a matching element to become clickable (visible, enabled, not
 * covered). A page that needs longer has a wait action for it; without the cap a click on a
 * hidden element would silently use up the whole deadline.
 */
const CLICK_ACTIONABLE_MS = 5_000;

export async function wait(ctx: ActionContext, action: ActionOf<'wait'>): Promise<void> {
  if (action.selector === undefined) {
    // The schema allows exactly one of milliseconds and selector.
    await sleep(action.milliseconds!, undefined, { signal: ctx.signal });
    return;
  }
  // No cap of its own: waiting for content to appear is the point, and the deadline bounds it.
  await ctx.page
    .locator(action.selector)
    .filter({ visible: true })
    .first()
    .waitFor({ state: 'attached', timeout: ctx.remainingMs() });
}

export async function click(ctx: ActionContext, { selector, all }: ActionOf<'click'>): Promise<void> {
  const matches = ctx.page.locator(selector);
  if (all) {
    // Handles, not indexes: a click may add or remove matches, and each element is clicked once.
    for (const element of await matches.elementHandles()) {
      // Hidden matches, or matches an earlier click removed, are not there for a user to click.
      if (await element.isVisible()) await clickWithinCap(ctx, selector, (timeout) => element.click({ timeout }));
    }
  } else {
    if ((await matches.count()) === 0) throw new ActionFailed(`no element matches ${selector}`);
    // What a user would click: the first match they can see.
    const target = matches.filter({ visible: true }).first();
    await clickWithinCap(ctx, selector, (timeout) => target.click({ timeout }));
  }
  await ctx.settle();
}

async function clickWithinCap(
  ctx: ActionContext,
  selector: string,
  clickWithTimeout: (timeoutMs: number) => Promise<void>,
): Promise<void> {
  const capped = CLICK_ACTIONABLE_MS < ctx.remainingMs();
  try {
    await clickWithTimeout(capped ? CLICK_ACTIONABLE_MS : ctx.remainingMs());
  } catch (err) {
    // Past the cap it is this element's fault; at the deadline it is a timeout like any other.
    if (capped && err instanceof Error && err.name === 'TimeoutError') {
      throw new ActionFailed(`no element matching ${selector} became clickable (hidden, disabled or covered)`);
    }
    throw err;
  }
}

/** Types into whatever has focus, one key event per character, as a person would. */
export async function write(ctx: ActionContext, { text }: ActionOf<'write'>): Promise<void> {
  await ctx.page.keyboard.type(text);
  await ctx.settle();
}

export async function press(ctx: ActionContext, { key }: ActionOf<'press'>): Promise<void> {
  await ctx.page.keyboard.press(key);
  await ctx.settle();
}

/**
 * One screenful up or down: of the window, or of the element the selector names (its content
 * moves by its own visible height). Instant, so a page's smooth scrolling cannot outlast the settle.
 */
export async function scroll(ctx: ActionContext, { direction, selector }: ActionOf<'scroll'>): Promise<void> {
  const sign = direction === 'down' ? 1 : -1;
  if (selector === undefined) {
    await ctx.page.evaluate((s) => window.scrollBy({ top: s * window.innerHeight, behavior: 'instant' }), sign);
  } else {
    const target = ctx.page.locator(selector);
    if ((await target.count()) === 0) throw new ActionFailed(`no element matches ${selector}`);
    await target
      .first()
      .evaluate((el, s) => el.scrollBy({ top: s * el.clientHeight, behavior: 'instant' }), sign, {
        timeout: ctx.remainingMs(),
      });
  }
  await ctx.settle();
}
