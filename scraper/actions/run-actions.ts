/**
 * Runs a scrape's actions in order on the rendered page, after load and settle and before the
 * engine captures the content, inside the scrape's one deadline. The first action that fails
 * fails the scrape with SCRAPE_ACTION_ERROR naming it; nothing after it runs.
 */
import type { Action } from '../../contracts/scrape-options.js';
import { TrawlError } from '../../lib/errors.js';
import type { ActionOutputs } from '../types.js';
import { ActionFailed, actionError } from './action-error.js';
import { pdf, screenshot } from './capture.js';
import type { ActionContext } from './context.js';
import { executeJavascript } from './execute-javascript.js';
import { click, press, scroll, wait, write } from './interact.js';

export function noActionOutputs(): ActionOutputs {
  return { screenshots: [], scrapes: [], javascriptReturns: [], pdfs: [] };
}

export async function runActions(actions: readonly Action[], ctx: ActionContext): Promise<ActionOutputs> {
  const outputs = noActionOutputs();
  for (const [index, action] of actions.entries()) {
    try {
      await runAction(ctx, action, outputs);
    } catch (err) {
      throw asActionError(err, index, action, ctx);
    }
  }
  return outputs;
}

async function runAction(ctx: ActionContext, action: Action, outputs: ActionOutputs): Promise<void> {
  switch (action.type) {
    case 'wait':
      return wait(ctx, action);
    case 'click':
      return click(ctx, action);
    case 'write':
      return write(ctx, action);
    case 'press':
      return press(ctx, action);
    case 'scroll':
      return scroll(ctx, action);
    case 'screenshot':
      outputs.screenshots.push(await screenshot(ctx, action));
      return;
    case 'scrape':
      outputs.scrapes.push({ url: ctx.page.url(), html: await ctx.html() });
      return;
    case 'executeJavascript':
      outputs.javascriptReturns.push(await executeJavascript(ctx, action));
      return;
    case 'pdf':
      outputs.pdfs.push(await pdf(ctx, action));
      return;
  }
}

/**
 * The action's own failures, and what Playwright says about its selector, key or script, become
 * SCRAPE_ACTION_ERROR. The deadline, a closed or crashed page and errors that already carry a code
 * pass through, and the engine reports them as it would outside actions.
 */
function asActionError(err: unknown, index: number, action: Action, ctx: ActionContext): unknown {
  if (ctx.signal.aborted || err instanceof TrawlError) return err;
  if (err instanceof ActionFailed) return actionError(index, action, err.message);
  if (!(err instanceof Error) || err.name === 'TimeoutError') return err;
  const reason = playwrightReason(err);
  if (ctx.page.isClosed() || /crash/i.test(reason)) return err;
  return actionError(index, action, reason, err);
}

/** The first line of a Playwright error without its `locator.click: ` style prefix. */
function playwrightReason(err: Error): string {
  const firstLine = err.message.split('\n')[0] ?? '';
  return firstLine.replace(/^[a-zA-Z]+\.[a-zA-Z]+: /, '');
}
