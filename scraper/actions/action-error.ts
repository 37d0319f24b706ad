import type { Action } from '../../contracts/scrape-options.js';
import { NonRetryablePageError } from '../../lib/errors.js';

/** An action could not do what it asked for (no such element, nothing clickable); the message is the reason. */
export class ActionFailed extends Error {}

/**
 * SCRAPE_ACTION_ERROR, naming the action by its index in `actions` (from 0, like the paths in
 * validation errors) and its type. Not retried: the same page fails the same actions again.
 */
export function actionError(index: number, action: Action, reason: string, cause?: unknown): NonRetryablePageError {
  return new NonRetryablePageError('SCRAPE_ACTION_ERROR', `Action ${index} (${action.type}) failed: ${reason}`, {
    details: { index, type: action.type },
    cause,
  });
}
