/**
 * Temporal Schedules the service needs, registered by every worker at start. Creating one that
 * exists is a no-op, so any number of workers may start at once; the Schedule, not a process
 * timer, decides when maintenance runs, and it shows in the Temporal UI under Schedules.
 */
import { Client, Connection, ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import { temporalConnectionOptions, type TemporalSettings } from '../lib/temporal-connection.js';
import { purgeExpiredWorkflow } from '../workflows/index.js';
import { purgeRunWorkflowId, purgeScheduleId } from '../lib/workflow-ids.js';

/** One purge per deployment: its task queue names it (`trawl-purge-expired` by default). */
const PURGE_EVERY = '10m';

export async function ensureSchedules(options: TemporalSettings): Promise<void> {
  const connection = await Connection.connect(temporalConnectionOptions(options));
  try {
    const client = new Client({ connection, namespace: options.namespace });
    await client.schedule
      .create({
        scheduleId: purgeScheduleId(options.taskQueue),
        spec: { intervals: [{ every: PURGE_EVERY }] },
        action: {
          type: 'startWorkflow',
          workflowType: purgeExpiredWorkflow,
          taskQueue: options.taskQueue,
          workflowId: purgeRunWorkflowId(options.taskQueue),
        },
        // A slow purge is never doubled up; the next tick simply finds less to do.
        policies: { overlap: ScheduleOverlapPolicy.SKIP },
      })
      .catch((err: unknown) => {
        if (!(err instanceof ScheduleAlreadyRunning)) throw err;
      });
  } finally {
    await connection.close();
  }
}
