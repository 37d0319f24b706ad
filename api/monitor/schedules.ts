/**
 * Each monitor is a Temporal Schedule (`monitor-<id>`, under Schedules in the Temporal UI) whose
 * action starts monitorCheckWorkflow. Creating, pausing, updating and deleting a monitor act on it
 * here. Its overlap policy is ALLOW_ALL on purpose: Temporal's SKIP drops a due run without a
 * trace, and a monitor must record that run as `skipped_overlap`. Every start therefore runs the
 * check workflow, whose first activity skips (and records) it while another check is running.
 */
import { ScheduleNotFoundError, ScheduleOverlapPolicy, type ScheduleOptions } from '@temporalio/client';
import type { MonitorCheckWorkflowInput } from '../../workflows/monitor-check.js';
import { monitorCheckWorkflow } from '../../workflows/index.js';
import { JobKindAttribute, TeamIdAttribute } from '../../workflows/search-attributes.js';
import type { AppDeps } from '../deps.js';
import { httpError } from '../errors.js';
import { monitorScheduleId, scheduledCheckWorkflowId } from '../../lib/workflow-ids.js';

interface ScheduleFields {
  monitorId: string;
  teamId: string;
  cron: string;
  timezone: string;
  paused: boolean;
}

export function checkWorkflowOptions(deps: AppDeps, teamId: string) {
  return {
    taskQueue: deps.config.temporal.taskQueue,
    typedSearchAttributes: [
      { key: TeamIdAttribute, value: teamId },
      { key: JobKindAttribute, value: 'monitor' },
    ],
  };
}

function scheduleOptions(deps: AppDeps, fields: ScheduleFields): ScheduleOptions {
  const input: MonitorCheckWorkflowInput = { monitorId: fields.monitorId, trigger: 'scheduled' };
  return {
    scheduleId: monitorScheduleId(fields.monitorId),
    spec: { cronExpressions: [fields.cron], timezone: fields.timezone },
    action: {
      type: 'startWorkflow',
      workflowType: monitorCheckWorkflow,
      workflowId: scheduledCheckWorkflowId(fields.monitorId),
      args: [input],
      ...checkWorkflowOptions(deps, fields.teamId),
    },
    // A check missed while Temporal was down is not worth running late; the next one is due soon.
    policies: { overlap: ScheduleOverlapPolicy.ALLOW_ALL, catchupWindow: '1 minute' },
    state: { paused: fields.paused, note: fields.paused ? 'paused through the API' : undefined },
  };
}

/** A Temporal that does not answer is a prompt 503; the caller undoes what it wrote. */
async function withTemporal<T>(deps: Pick<AppDeps, 'temporal' | 'log'>, what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await deps.temporal.connection.withDeadline(Date.now() + 5_000, call);
  } catch (err) {
    deps.log.warn({ err }, `monitor: ${what} failed`);
    throw httpError('SERVICE_UNAVAILABLE', `Service Unavailable: the monitor's schedule could not be ${what}, try again`);
  }
}

export async function createMonitorSchedule(deps: AppDeps, fields: ScheduleFields): Promise<void> {
  await withTemporal(deps, 'created', () => deps.temporal.schedule.create(scheduleOptions(deps, fields)));
}

export async function updateMonitorSchedule(deps: AppDeps, fields: ScheduleFields): Promise<void> {
  const handle = deps.temporal.schedule.getHandle(monitorScheduleId(fields.monitorId));
  const next = scheduleOptions(deps, fields);
  await withTemporal(deps, 'updated', () =>
    handle.update((previous) => ({ ...previous, spec: next.spec, action: next.action as typeof previous.action, state: { ...previous.state, ...next.state } })),
  );
}

export async function deleteMonitorSchedule(deps: Pick<AppDeps, 'temporal' | 'log'>, monitorId: string): Promise<void> {
  const handle = deps.temporal.schedule.getHandle(monitorScheduleId(monitorId));
  await withTemporal(deps, 'deleted', async () => {
    // Already gone (a delete retried after a timeout) is what was asked for.
    await handle.delete().catch((err: unknown) => {
      if (!(err instanceof ScheduleNotFoundError)) throw err;
    });
  });
}
