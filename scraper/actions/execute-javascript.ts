/** The executeJavascript action: run a caller's script in the page and report what it returned. */
import { Script } from 'node:vm';
import type { ActionOutputs } from '../types.js';
import type { ActionContext, ActionOf } from './context.js';

type JavascriptReturn = ActionOutputs['javascriptReturns'][number];

/**
 * A script is either an expression (`document.title`) whose value is returned, or a function body
 * that returns with `return`; `await` works in both. Which one is decided by compiling, never
 * running, the expression form here: a script that is not an expression is a body.
 */
export function scriptBody(script: string): string {
  const expression = `return (${script}\n);`;
  try {
    new Script(`(async () => {${expression}\n})`);
    return expression;
  } catch {
    return script;
  }
}

/**
 * The page-side program: the script runs in the page's main world, and its value comes back as
 * its `typeof` there plus its JSON text. JSON because a Document is JSON; values JSON cannot
 * hold (BigInt, cycles) come back as their String(), and undefined, functions and symbols
 * without a value.
 */
export function pageProgram(script: string): string {
  return `(async () => {
  const value = await (async () => {\n${scriptBody(script)}\n})();
  let json;
  try { json = JSON.stringify(value); } catch { json = JSON.stringify(String(value)); }
  return { type: typeof value, json };
})()`;
}

export async function executeJavascript(ctx: ActionContext, { script }: ActionOf<'executeJavascript'>): Promise<JavascriptReturn> {
  const { type, json } = await ctx.page.evaluate<{ type: string; json?: string }>(pageProgram(script));
  return json === undefined ? { type } : { type, value: JSON.parse(json) as unknown };
}
