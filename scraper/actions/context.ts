import type { Action } from '../../contracts/scrape-options.js';
import type { Page } from '../../browser/browser-pool.js';

export type ActionOf<T extends Action['type']> = Extract<Action, { type: T }>;

/** What the browser engine lends the actions: its page and its view of the scrape's deadline. */
export interface ActionContext {
  page: Page;
  /** Aborted when the scrape's deadline passes or it is cancelled. */
  signal: AbortSignal;
  /** Milliseconds left before the deadline; Playwright calls that take a timeout get this. */
  remainingMs(): number;
  /** Resolves once the page is quiet after an interaction: its requests done, a navigation loaded. */
  settle(): Promise<void>;
  /** The DOM serialised, as the engine captures it at the end. */
  html(): Promise<string>;
}
