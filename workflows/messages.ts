/**
 * Signals, queries and updates, shared by workflows, the API and tests so names and types
 * cannot drift. Wire names are kebab-case; constants are <verb><Noun><Kind>.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ExecuteInput, ExecuteResult } from '../activities/browser/execute.js';

export interface PageJobProgress {
  phase: 'starting' | 'scraping' | 'finishing' | 'done';
  completed: number;
  failed: number;
  inFlight: number;
  creditsUsed: number;
  runs: number;
}

export const getProgressQuery = defineQuery<PageJobProgress>('get-progress');

/** A batch scrape got more URLs (appendToId); they are already in the frontier. */
export const pagesAddedSignal = defineSignal('pages-added');

/** A sub-agent's parent ended: the sub-agent stops, and its trace ends with `parent_finished`. */
export const parentFinishedSignal = defineSignal('parent-finished');

/** An execute in a live browser session (workflows/browser-session.ts): code or a prompt, answered when it is done. */
export type SessionExecuteRequest = Omit<ExecuteInput, 'sessionId' | 'teamId' | 'record'>;

/** How a browser session ended, and what its time cost. */
export interface SessionOutcome {
  status: 'destroyed' | 'lost';
  reason: string;
  durationMs: number;
  credits: number;
}

export type SessionReady = { ok: true } | { ok: false; code: string; error: string };

export const executeInSessionUpdate = defineUpdate<ExecuteResult, [SessionExecuteRequest]>('execute');
/** Answers once the session's browser is open, or failed to open. */
export const sessionReadyUpdate = defineUpdate<SessionReady>('await-ready');
/** Ends the session (saving its profile when asked); answers with its outcome once it has ended. */
export const stopSessionUpdate = defineUpdate<SessionOutcome>('stop');
