/**
 * Page work that found none of the team's concurrency slots free comes back `deferred`
 * (activities/page/team-slot.ts): its workflow waits on a durable timer and tries again, so a
 * waiting page holds no worker's activity slot and one team's queue cannot starve another's.
 */
import { sleep } from '@temporalio/workflow';

const SLOT_RETRY_FIRST_MS = 500;
const SLOT_RETRY_MAX_MS = 5_000;

/** Calls `attempt` until its result is not deferred, 0.5 s apart at first, doubling to 5 s. */
export async function untilSlotGranted<T extends { deferred?: boolean }>(attempt: () => Promise<T>): Promise<Exclude<T, { deferred: true }>> {
  let result = await attempt();
  for (let waitMs = SLOT_RETRY_FIRST_MS; result.deferred; waitMs = Math.min(waitMs * 2, SLOT_RETRY_MAX_MS)) {
    await sleep(waitMs);
    result = await attempt();
  }
  return result as Exclude<T, { deferred: true }>;
}
