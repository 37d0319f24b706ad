/**
 * What a live session can do to its page, as data: the `bash` language's agent-browser commands
 * (agent-browser.ts) and a prompt's model steps (llm/browser-step.ts) both become these, and
 * browser/interact/ops.ts carries them out through Playwright. Nothing here reaches a shell.
 */

/** An element: a ref from the last `snapshot` (`@e5`), or a CSS selector run by Chromium. */
export type Target = { ref: string } | { selector: string };

export type BrowserOp =
  | { op: 'open'; url: string }
  | { op: 'click' | 'dblclick' | 'hover' | 'check' | 'uncheck'; target: Target }
  | { op: 'fill' | 'type'; target: Target; text: string }
  | { op: 'select'; target: Target; value: string }
  | { op: 'press'; key: string }
  | { op: 'scroll'; direction: 'up' | 'down' | 'left' | 'right'; pixels?: number }
  | { op: 'wait'; ms: number }
  | { op: 'waitFor'; target: Target }
  | { op: 'snapshot'; interactive: boolean }
  | { op: 'get'; what: 'text' | 'html' | 'value'; target: Target }
  | { op: 'get'; what: 'title' | 'url' }
  | { op: 'screenshot' }
  | { op: 'eval'; script: string }
  | { op: 'back' | 'forward' | 'reload' };

/** Longest CSS selector accepted, as for scrape actions (contracts/scrape-options.ts). */
export const MAX_SELECTOR_CHARS = 1000;
/** Longest wait one op may ask for; the execute's timeout bounds the whole run anyway. */
export const MAX_WAIT_MS = 60_000;
