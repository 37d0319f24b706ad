/**
 * Signals, queries and updates, shared by workflows, the API and tests so names and types
 * cannot drift. Wire names are kebab-case; constants are <verb><Noun><Kind>.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';

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
