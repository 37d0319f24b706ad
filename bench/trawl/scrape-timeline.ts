/**
 * Where a single scrape's time goes inside Temporal, from the event times of its workflow
 * history: waiting for a workflow task, running it, waiting for the activity to start, the
 * activity itself, and finishing the workflow. With the client's total, the rest is the API
 * (auth, job row, starting the workflow, waiting for its result, reading the Document back).
 *
 * A scrape whose page is a local activity (workflows/scrape.ts) has no activity events: its page
 * runs inside the first workflow task, and the task's marker records when the worker scheduled
 * it (the worker's clock, on the same machine as the server's here). Its `complete_time` is not
 * used: it read 3 ms for pages whose answers came 25 ms later, after their store's commit.
 */
import type { Client } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time.js';
import { median } from '../stats.js';

export interface ScrapeTimeline {
  /** Workflow started → its first workflow task started (task queue wait). */
  firstTaskWaitMs: number;
  /** First workflow task started → activity scheduled: the task itself (and its completion, for an activity task). */
  firstTaskMs: number;
  /** Activity scheduled → started (activity queue wait, or eager dispatch); absent for a local activity. */
  activityWaitMs?: number;
  /** Activity started → completed: the scrape, storing the Document, reporting back; local: scheduled → the client has the response. */
  activityMs: number;
  /** Whether the page ran as a local activity. */
  local: boolean;
  /** Activity completed → workflow completed; local: the client's response → workflow completed (negative: before it). */
  finishMs: number;
  /** Workflow started → completed. */
  workflowMs: number;
  /** The client's request sent → workflow started: the API's checks, the job row, the start call. */
  beforeStartMs: number;
  /** Activity completed → the client has the response: the stored notice, reading the Document back, HTTP; absent for a local activity. */
  afterPageMs?: number;
}

/** When the client sent the request and received the response (epoch ms, this machine's clock). */
export interface ClientCall {
  workflowId: string;
  sentAt: number;
  receivedAt: number;
}

export async function scrapeTimeline(client: Client, { workflowId, sentAt, receivedAt }: ClientCall): Promise<ScrapeTimeline> {
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
  const marker = find((e) => e.markerRecordedEventAttributes)?.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data;
  if (marker) {
    const { original_schedule_time: at } = JSON.parse(Buffer.from(marker).toString('utf8')) as { original_schedule_time: { seconds: number; nanos: number } };
    const scheduled = at.seconds * 1_000 + at.nanos / 1e6;
    return {
      firstTaskWaitMs: firstTask - started,
      firstTaskMs: scheduled - firstTask,
      activityMs: receivedAt - scheduled,
      local: true,
      finishMs: completed - receivedAt,
      workflowMs: completed - started,
      beforeStartMs: started - sentAt,
    };
  }
  const scheduled = at((e) => e.activityTaskScheduledEventAttributes);
  const activityStarted = at((e) => e.activityTaskStartedEventAttributes);
  const activityDone = at((e) => e.activityTaskCompletedEventAttributes);
  return {
    firstTaskWaitMs: firstTask - started,
    firstTaskMs: scheduled - firstTask,
    activityWaitMs: activityStarted - scheduled,
    activityMs: activityDone - activityStarted,
    local: false,
    finishMs: completed - activityDone,
    workflowMs: completed - started,
    beforeStartMs: started - sentAt,
    afterPageMs: receivedAt - activityDone,
  };
}

/** Medians over several scrapes, as one line. */
export function describeTimelines(timelines: readonly ScrapeTimeline[]): string {
  const m = (key: Exclude<keyof ScrapeTimeline, 'local'>) => median(timelines.map((t) => t[key] ?? 0)).toFixed(0);
  const head = `Timeline, medians of ${timelines.length} scrapes: request to workflow start ${m('beforeStartMs')} ms, workflow task wait ${m('firstTaskWaitMs')} ms, `;
  if (timelines.every((t) => t.local)) {
    return `${head}first workflow task to the local activity ${m('firstTaskMs')} ms, local activity to the response ${m('activityMs')} ms; workflow completed ${m('finishMs')} ms after the response, start to end ${m('workflowMs')} ms`;
  }
  return `${head}first workflow task ${m('firstTaskMs')} ms, activity wait ${m('activityWaitMs')} ms, activity ${m('activityMs')} ms, page done to response ${m('afterPageMs')} ms; workflow completion ${m('finishMs')} ms after the page, start to end ${m('workflowMs')} ms`;
}
