/**
 * An activity's error boundary. A cancellation leaves as it came, so Temporal reports the attempt
 * cancelled; anything else leaves as the ApplicationFailure its TrawlError maps to (lib/errors.ts:
 * the code in its details, retryable or not), so workflows and the API read one shape whichever
 * activity failed. `translate` names a failure first (a refused charge, a deadline that passed).
 */
import { Context } from '@temporalio/activity';
import { toApplicationFailure } from '../lib/errors.js';

export async function atActivityBoundary<T>(work: () => Promise<T>, translate: (err: unknown) => unknown = (err) => err): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (Context.current().cancellationSignal.aborted) throw err;
    throw toApplicationFailure(translate(err));
  }
}
