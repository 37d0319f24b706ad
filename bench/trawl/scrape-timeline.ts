/**
 * Where a single scrape's time goes inside Temporal, from the event times of its workflow
 * history: waiting for a workflow task, running it, waiting for the activity to start, the
 * activity itself, and finishing the workflow. With the client's total, the rest is the API
 * (auth, job row, starting the workflow, waiting for its result, reading the Document back).
 */
import type { Client } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time.js';
import { median } from '../stats.js';

export interface ScrapeTimeline {
  /** Workflow started → its first workflow task started (task queue wait). */
  firstTaskWaitMs: number;
  /** First workflow task started → activity scheduled (the task itself, and its completion). */
  firstTaskMs: number;
  /** Activity scheduled → started (activity queue wait, or eager dispatch). */
  activityWaitMs: number;
  /** Activity started → completed: the scrape, storing the Document, reporting back. */
  activityMs: number;
  /** Activity completed → workflow completed (a second workflow task). */
  finishMs: number;
  /** Workflow started → completed. */
  workflowMs: number;
}

export async function scrapeTimeline(client: Client, workflowId: string): Promise<ScrapeTimeline> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const at = (has: (e: NonNullable<typeof history.events>[number]) => unknown) => {
    const event = history.events?.find((e) => has(e));
    if (!event) throw new Error(`${workflowId}: event missing from history`);
    return tsToMs(event.eventTime);
  };
  const started = at((e) => e.workflowExecutionStartedEventAttributes);
  const firstTask = at((e) => e.workflowTaskStartedEventAttributes);
  const scheduled = at((e) => e.activityTaskScheduledEventAttributes);
  const activityStarted = at((e) => e.activityTaskStartedEventAttributes);
  const activityDone = at((e) => e.activityTaskCompletedEventAttributes);
  const completed = at((e) => e.workflowExecutionCompletedEventAttributes);
  return {
    firstTaskWaitMs: firstTask - started,
    firstTaskMs: scheduled - firstTask,
    activityWaitMs: activityStarted - scheduled,
    activityMs: activityDone - activityStarted,
    finishMs: completed - activityDone,
    workflowMs: completed - started,
  };
}

/** Medians over several scrapes, as one line. */
export function describeTimelines(timelines: readonly ScrapeTimeline[]): string {
  const m = (key: keyof ScrapeTimeline) => median(timelines.map((t) => t[key])).toFixed(0);
  return (
    `Temporal timeline, medians of ${timelines.length} scrapes: workflow task wait ${m('firstTaskWaitMs')} ms, ` +
    `first workflow task ${m('firstTaskMs')} ms, activity wait ${m('activityWaitMs')} ms, activity ${m('activityMs')} ms, ` +
    `completion ${m('finishMs')} ms; workflow start to end ${m('workflowMs')} ms`
  );
}
