/**
 * One execute in a live session, on the worker that holds it: `bash` (agent-browser commands,
 * parsed, no shell), `node` (the sandbox, with `page` bridged to an allowlist), or a `prompt` (the
 * model picks browser actions, a bounded loop). The page ends each execute as a replay frame.
 */
import { log } from '@temporalio/activity';
import { touchBrowserSession, insertReplayFrame } from '../../db/repositories/browser-sessions.js';
import { CommandRefused, parseAgentBrowser } from '../../contracts/agent-browser.js';
import type { BrowserOp } from '../../contracts/browser-ops.js';
import { firstLineOf } from '../../lib/errors.js';
import { runOp, type OpContext } from '../../browser/interact/ops.js';
import { bridgeCall } from '../../browser/interact/page-bridge.js';
import { snapshot } from '../../browser/interact/snapshot.js';
import { decideBrowserStep } from '../../llm/browser-step.js';
import { atActivityBoundary } from '../boundary.js';
import type { ActivityDeps } from '../deps.js';
import { modelFor } from '../page/enrich/model.js';
import type { Sandbox } from '../../sandbox/client.js';
import type { LiveSession } from './live-sessions.js';
import { requireLiveSession } from './session.js';

export interface ExecuteInput {
  sessionId: string;
  teamId: string;
  language: 'node' | 'bash';
  code?: string;
  prompt?: string;
  timeoutMs: number;
  /** The session's recordSession: keep the execute's replay frames. @default true */
  record?: boolean;
}

/** Firecrawl's execute response fields. */
export interface ExecuteResult {
  stdout: string;
  stderr: string;
  result?: string;
  exitCode: number;
  killed: boolean;
  truncated?: boolean;
  /** A prompt's answer. */
  output?: string;
}

/** Model steps one prompt may take. */
export const MAX_PROMPT_STEPS = 12;
const OUTPUT_BYTES = 1024 * 1024;

function opContext(session: LiveSession, deadline: number): OpContext {
  return { page: session.page, signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())), remainingMs: () => Math.max(1, deadline - Date.now()) };
}


async function runCommands(ctx: OpContext, ops: BrowserOp[], frames: Buffer[]): Promise<ExecuteResult> {
  const lines: string[] = [];
  for (const op of ops) {
    try {
      const { output, screenshot } = await runOp(ctx, op);
      if (screenshot) frames.push(screenshot);
      lines.push(output);
    } catch (err) {
      return { stdout: lines.join('\n'), stderr: `${op.op}: ${firstLineOf(err)}`, exitCode: 1, killed: ctx.signal.aborted };
    }
  }
  const stdout = lines.join('\n');
  return { stdout: stdout.slice(0, OUTPUT_BYTES), stderr: '', exitCode: 0, killed: false, ...(stdout.length > OUTPUT_BYTES && { truncated: true }) };
}

async function runPrompt(deps: ActivityDeps, input: ExecuteInput, ctx: OpContext, task: string, frames: Buffer[]): Promise<ExecuteResult> {
  // Metered as every model feature is: its tokens in the team's ledger, refused past the team's quota
  // or once the session's job has ended. The session is its job.
  const model = modelFor(deps, { teamId: input.teamId, jobId: input.sessionId }, 'interact');
  const history: string[] = [];
  for (let step = 0; step < MAX_PROMPT_STEPS && ctx.remainingMs() > 1; step++) {
    const choice = await decideBrowserStep(model, {
      task,
      url: ctx.page.url(),
      title: await ctx.page.title(),
      snapshot: await snapshot(ctx.page, false),
      history,
      stepsLeft: MAX_PROMPT_STEPS - step,
      signal: ctx.signal,
    });
    if ('answer' in choice) return { stdout: history.join('\n'), stderr: '', exitCode: 0, killed: false, output: choice.answer };
    const done = await runCommands(ctx, [choice.op], frames);
    history.push(`${JSON.stringify(choice.op)} → ${(done.exitCode === 0 ? done.stdout : `failed: ${done.stderr}`).slice(0, 2_000)}`);
  }
  return { stdout: history.join('\n'), stderr: 'The prompt ran out of steps or time before the model finished', exitCode: 1, killed: ctx.remainingMs() <= 1 };
}

function runCode(sandbox: Sandbox, ctx: OpContext, code: string, frames: Buffer[]): Promise<ExecuteResult> {
  return sandbox.run({
    code,
    timeoutMs: ctx.remainingMs(),
    onCall: (method, args) => bridgeCall(ctx, { screenshot: (image) => frames.push(image) }, method, args),
  });
}

/**
 * The replay frames of an execute: its own screenshots, then the page as it left it. Queued on the
 * session right after the execute, so the answer does not wait for them and the next execute
 * starts from the page they show. A frame that cannot be taken or stored is only missing from
 * the replay.
 */
function keepFramesAfter(deps: ActivityDeps, session: LiveSession, action: string, frames: Buffer[]): void {
  void session
    .exclusive(async () => {
      const last = await session.page.screenshot({ type: 'jpeg', quality: 60, timeout: 5_000 }).catch(() => undefined);
      for (const image of last ? [...frames, last] : frames) {
        await insertReplayFrame(deps.db, { sessionId: session.id, seq: session.nextFrame(), pageUrl: session.page.url(), action, image });
      }
    })
    .catch((err: unknown) => log.warn('browser session: a replay frame was not kept', { sessionId: session.id, err: String(err) }));
}

export function createExecuteInSessionActivity(deps: ActivityDeps) {
  return async function executeInBrowserSession(input: ExecuteInput): Promise<ExecuteResult> {
    return atActivityBoundary(async () => {
      const session = requireLiveSession(deps, input.sessionId);
      return session.exclusive(async () => {
        const ctx = opContext(session, Date.now() + input.timeoutMs);
        const frames: Buffer[] = [];
        let result: ExecuteResult;
        if (input.prompt !== undefined && input.code === undefined) result = await runPrompt(deps, input, ctx, input.prompt, frames);
        else if (input.language === 'bash') {
          let ops: BrowserOp[];
          try {
            ops = parseAgentBrowser(input.code ?? '');
          } catch (err) {
            if (!(err instanceof CommandRefused)) throw err;
            return { stdout: '', stderr: err.message, exitCode: 2, killed: false };
          }
          result = await runCommands(ctx, ops, frames);
        } else result = await runCode(deps.liveSessions!.sandbox, ctx, input.code ?? '', frames);
        // Before the answer: a prompt's higher rate must be on record by the time the session is billed.
        await touchBrowserSession(deps.db, input.sessionId, input.prompt !== undefined);
        if (input.record !== false) keepFramesAfter(deps, session, input.prompt !== undefined && input.code === undefined ? 'prompt' : input.language, frames);
        return result;
      });
    });
  };
}
