/**
 * A zero-data-retention job's Temporal history goes once its workflow has closed. Its input holds
 * the URL and options (a crawl's, a search's query), and Temporal would keep them for the
 * namespace's retention period. Nothing reads a closed job's history: its status and results are
 * in Postgres. ZDR workflows carry the `ZeroDataRetention` search attribute (api/job-start.ts).
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';

/** Every closed run of every ZDR workflow, each run of a continue-as-new chain its own. */
const CLOSED_ZDR_RUNS = 'ZeroDataRetention = true AND ExecutionStatus != "Running"';

async function deleteRun(client: Client, workflowId: string, runId: string): Promise<void> {
  try {
    await client.workflowService.deleteWorkflowExecution({ namespace: client.options.namespace, workflowExecution: { workflowId, runId } });
  } catch (err) {
    // 5 NOT_FOUND: deleted already (visibility lags a deletion), by another purge or the API.
    if ((err as { code?: number }).code !== 5) throw err;
  }
}

async function deleteRuns(client: Client, query: string): Promise<number> {
  let deleted = 0;
  for await (const run of client.workflow.list({ query })) {
    await deleteRun(client, run.workflowId, run.runId);
    deleted += 1;
  }
  return deleted;
}

/**
 * Deletes the closed runs of one ZDR workflow; how many. Its latest run is read from the history
 * service, which knows at once that it closed; visibility, which lists the earlier runs of a
 * continue-as-new chain, lags by a moment. A workflow already deleted (a job read to its end
 * twice) has none. The workflow id is built by Trawl.
 */
export async function deleteClosedZdrRuns(client: Client, workflowId: string): Promise<number> {
  const latest = await client.workflow
    .getHandle(workflowId)
    .describe()
    .catch((err: unknown) => {
      if (err instanceof WorkflowNotFoundError) return undefined;
      throw err;
    });
  if (!latest) return 0;
  const earlier = await deleteRuns(client, `${CLOSED_ZDR_RUNS} AND WorkflowId = "${workflowId}" AND RunId != "${latest.runId}"`);
  if (latest.status.name === 'RUNNING') return earlier;
  await deleteRun(client, workflowId, latest.runId);
  return earlier + 1;
}

/** The purge's part: every closed ZDR run left (a job nobody read to its end); how many. */
export function deleteAllClosedZdrRuns(client: Client): Promise<number> {
  return deleteRuns(client, CLOSED_ZDR_RUNS);
}
