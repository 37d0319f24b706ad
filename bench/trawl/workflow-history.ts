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
  /** crawlPage activities per worker identity (`<pid>@<host>`) that started them. */
  pagesByWorker: Map<string, number>;
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
      if (started?.identity && typeByScheduledId.get(String(started.scheduledEventId)) === 'crawlPage') {
        bump(stats.pagesByWorker, started.identity);
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
