/** The TrawlError a piece of work failed with; the test fails if it succeeded or threw anything else. */
import { expect } from 'vitest';
import { TrawlError } from '../../lib/errors.js';

export async function failureOf(work: Promise<unknown>): Promise<TrawlError> {
  const err = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TrawlError);
  return err as TrawlError;
}
