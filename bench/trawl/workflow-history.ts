/**
 * What a job cost Temporal: history events across all its runs (continue-as-new included), by
 * type, and which worker ran each activity, read back from the server after the job ended.
 */
import type { Client } from '@temporalio/client';
import protos from '@temporalio/proto';

export interface HistoryStats {
  runs: number;
  events: number;
  eventsByType: Map<string, number>;
  activitiesByType: Map<string, number>;
  /**
   * Pages per worker identity (`<pid>@<host>`): that started their crawlPage activity, or that a
   * crawlSlice it completed settled.
   */
  pagesByWorker: Map<string, number>;
}

/** A JSON payload (the default payload converter's), or undefined. */
function payload<T>(data: Uint8Array | null | undefined): Partial<T> | undefined {
  if (!data) return undefined;
  try {
    return JSON.parse(Buffer.from(data).toString('utf8')) as Partial<T>;
  } catch {
    return undefined;
  }
}

/** The pages a crawlSlice settled, from its result (activities/crawl-slice.ts). */
function slicePages(data: Uint8Array | null | undefined): number {
  const result = payload<{ completed: number; failed: number }>(data);
  return (result?.completed ?? 0) + (result?.failed ?? 0);
}

export async function historyStats(client: Client, workflowId: string): Promise<HistoryStats> {
  const stats: HistoryStats = {
    runs: 0,
    events: 0,
    eventsByType: new Map(),
    activitiesByType: new Map(),
    pagesByWorker: new Map(),
  };
  const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  for await (const execution of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
    stats.runs += 1;
    const history = await client.workflow.getHandle(workflowId, execution.runId).fetchHistory();
    const typeByScheduledId = new Map<string, string>();
    for (const event of history.events ?? []) {
      stats.events += 1;
      const type = protos.temporal.api.enums.v1.EventType[event.eventType ?? 0] ?? String(event.eventType);
      bump(stats.eventsByType, type.replace(/^EVENT_TYPE_/, ''));
      const scheduled = event.activityTaskScheduledEventAttributes?.activityType?.name;
      if (scheduled) {
        bump(stats.activitiesByType, scheduled);
        typeByScheduledId.set(String(event.eventId), scheduled);
      }
      const started = event.activityTaskStartedEventAttributes;
      const startedType = started && typeByScheduledId.get(String(started.scheduledEventId));
      if (started?.identity && startedType === 'crawlPage') {
        stats.pagesByWorker.set(started.identity, (stats.pagesByWorker.get(started.identity) ?? 0) + 1);
      }
      const completed = event.activityTaskCompletedEventAttributes;
      if (completed?.identity && typeByScheduledId.get(String(completed.scheduledEventId)) === 'crawlSlice') {
        const pages = slicePages(completed.result?.payloads?.[0]?.data);
        stats.pagesByWorker.set(completed.identity, (stats.pagesByWorker.get(completed.identity) ?? 0) + pages);
      }
    }
  }
  return stats;
}

/** e.g. `8.1 events/page over 3 runs (ActivityTaskScheduled 2.0, …); activities: crawlPage 2000, claimPages 41`. */
export function describeHistory(stats: HistoryStats, pages: number): string {
  const perPage = (n: number) => (n / pages).toFixed(2);
  const topTypes = [...stats.eventsByType.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 6)
    .map(([type, n]) => `${type} ${perPage(n)}`)
    .join(', ');
  const activities = [...stats.activitiesByType.entries()].map(([type, n]) => `${type} ${n}`).join(', ');
  return `${perPage(stats.events)} history events/page over ${stats.runs} run(s) (${topTypes}); activities: ${activities}`;
}
