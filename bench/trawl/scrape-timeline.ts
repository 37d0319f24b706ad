/**
 * Where a single scrape's time goes inside Temporal, from the event times of its workflow
 * history: waiting for a workflow task, running it, waiting for the activity to start, the
 * activity itself, and finishing the workflow. With the client's total, the rest is the API
 * (auth, job row, starting the workflow, waiting for its result, reading the Document back).
 *
 * A scrape whose page is a local activity (workflows/scrape.ts) has no activity events: its page
 * runs inside the first workflow task, which then completes the workflow in the same batch.
 */
import type { Client } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time.js';
import { median } from '../stats.js';

export interface ScrapeTimeline {
  /** Workflow started → its first workflow task started (task queue wait). */
  firstTaskWaitMs: number;
  /**
   * First workflow task started → activity scheduled (the task itself, and its completion); for
   * a local activity, → that task completed, the page's whole work included.
   */
  firstTaskMs: number;
  /** Activity scheduled → started (activity queue wait, or eager dispatch); absent for a local activity. */
  activityWaitMs?: number;
  /** Activity started → completed: the scrape, storing the Document, reporting back; absent for a local activity. */
  activityMs?: number;
  /** Activity completed (local: first task completed) → workflow completed. */
  finishMs: number;
  /** Workflow started → completed. */
  workflowMs: number;
}

export async function scrapeTimeline(client: Client, workflowId: string): Promise<ScrapeTimeline> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  type Event = NonNullable<typeof history.events>[number];
  const find = (has: (e: Event) => unknown) => history.events?.find((e) => has(e));
  const at = (has: (e: Event) => unknown) => {
    const event = find(has);
    if (!event) throw new Error(`${workflowId}: event missing from history`);
    return tsToMs(event.eventTime);
  };
  const started = at((e) => e.workflowExecutionStartedEventAttributes);
  const firstTask = at((e) => e.workflowTaskStartedEventAttributes);
  const completed = at((e) => e.workflowExecutionCompletedEventAttributes);
  if (!find((e) => e.activityTaskScheduledEventAttributes)) {
    const firstTaskDone = at((e) => e.workflowTaskCompletedEventAttributes);
    return { firstTaskWaitMs: firstTask - started, firstTaskMs: firstTaskDone - firstTask, finishMs: completed - firstTaskDone, workflowMs: completed - started };
  }
  const scheduled = at((e) => e.activityTaskScheduledEventAttributes);
  const activityStarted = at((e) => e.activityTaskStartedEventAttributes);
  const activityDone = at((e) => e.activityTaskCompletedEventAttributes);
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
  const m = (key: keyof ScrapeTimeline) => median(timelines.map((t) => t[key] ?? 0)).toFixed(0);
  const head = `Temporal timeline, medians of ${timelines.length} scrapes: workflow task wait ${m('firstTaskWaitMs')} ms, `;
  const tail = `completion ${m('finishMs')} ms; workflow start to end ${m('workflowMs')} ms`;
  if (timelines.every((t) => t.activityMs === undefined)) return `${head}first workflow task with the page as a local activity ${m('firstTaskMs')} ms, ${tail}`;
  return `${head}first workflow task ${m('firstTaskMs')} ms, activity wait ${m('activityWaitMs')} ms, activity ${m('activityMs')} ms, ${tail}`;
}
