/**
 * A zero-data-retention job's Temporal history is deleted once its workflow has closed
 * (lib/zero-data-retention-history.ts), on a real Temporal dev server with stub activities: every
 * closed run of the job's workflow id, not only the latest; never a running one; never a job
 * without ZDR.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { describe, expect, it, vi } from 'vitest';
import type { TrawlActivities } from '../../../activities/index.js';
import { createDeleteZdrHistoriesActivity } from '../../../activities/purge-expired.js';
import type { ScrapePageInput } from '../../../activities/scrape-page.js';
import { scrapeOptionsSchema } from '../../../contracts/scrape-options.js';
import { deleteClosedZdrRuns } from '../../../lib/zero-data-retention-history.js';
import { purgeExpiredWorkflow, scrapeWorkflow } from '../../../workflows/index.js';
import { JobKindAttribute, TeamIdAttribute, ZeroDataRetentionAttribute } from '../../../workflows/search-attributes.js';
import { workflowTestEnvForFile } from '../../helpers/workflow-test-env.js';

const workflowEnv = workflowTestEnvForFile();

/** A scrape that finishes at once, or waits for `release` when its URL says so. */
function stubActivities(release: Promise<void>): Partial<TrawlActivities> {
  return {
    async scrapePage(input: ScrapePageInput) {
      if (input.url.endsWith('/hold')) await release;
      return { documentId: input.jobId, statusCode: 200, creditsUsed: 1 };
    },
    async purgeExpired() {
      return { jobs: 0, tombstones: 0, media: 0, indexed: 0, monitorChecks: 0, zeroDataRetention: 0, parseUploads: 0 };
    },
    deleteZdrHistories: createDeleteZdrHistoriesActivity(),
  };
}

function scrape(client: Client, taskQueue: string, workflowId: string, zdr: boolean, path = '/page') {
  const options = { ...scrapeOptionsSchema.parse({}), ...(zdr && { zeroDataRetention: true }) };
  return client.workflow.start(scrapeWorkflow, {
    taskQueue,
    workflowId,
    args: [{ jobId: randomUUID(), teamId: 't', url: `https://secret.example${path}`, options } as ScrapePageInput],
    typedSearchAttributes: [
      { key: TeamIdAttribute, value: 't' },
      { key: JobKindAttribute, value: 'scrape' },
      ...(zdr ? [{ key: ZeroDataRetentionAttribute, value: true }] : []),
    ],
  });
}

async function runsOf(client: Client, workflowId: string): Promise<string[]> {
  const runs: string[] = [];
  for await (const run of client.workflow.list({ query: `WorkflowId = "${workflowId}"` })) runs.push(run.status.name);
  return runs;
}

async function historyGone(client: Client, workflowId: string): Promise<boolean> {
  try {
    await client.workflow.getHandle(workflowId).describe();
    return false;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return true;
    throw err;
  }
}

/** Temporal deletes asynchronously: a deleted history goes from the server 15 to 35 s later here. */
const DELETION = { timeout: 90_000, interval: 500 };

describe('zero-data-retention histories', () => {
  it('every closed run of a ZDR workflow is deleted, by the API\'s call or the purge; never a running one or a job without ZDR', async () => {
    const { env, withWorker } = workflowEnv();
    const client = env.client;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const deliveredId = `scrape-zdr-${randomUUID()}`;
    const uncollectedId = `scrape-zdr-${randomUUID()}`;
    const runningId = `scrape-zdr-${randomUUID()}`;
    const plainId = `scrape-plain-${randomUUID()}`;
    await withWorker(stubActivities(released), async (taskQueue) => {
      // Two runs under one id, as a batch appended to after it finished has (or a continued chain).
      await (await scrape(client, taskQueue, deliveredId, true)).result();
      await (await scrape(client, taskQueue, deliveredId, true)).result();
      await (await scrape(client, taskQueue, uncollectedId, true)).result();
      await (await scrape(client, taskQueue, plainId, false)).result();
      const running = await scrape(client, taskQueue, runningId, true, '/hold');
      await vi.waitFor(async () => expect(await runsOf(client, deliveredId)).toEqual(['COMPLETED', 'COMPLETED']), { timeout: 10_000, interval: 100 });
      await vi.waitFor(async () => expect(await runsOf(client, uncollectedId)).toEqual(['COMPLETED']), { timeout: 10_000, interval: 100 });

      // The API's call, once a job is delivered: both runs of its id.
      expect(await deleteClosedZdrRuns(client, deliveredId)).toBe(2);
      // The purge's activity: every closed ZDR run (at least the uncollected one) and not the running one.
      const purged = await client.workflow.execute(purgeExpiredWorkflow, { taskQueue, workflowId: `purge-${randomUUID()}` });
      expect(purged.zeroDataRetentionHistories).toBeGreaterThanOrEqual(1);
      expect((await running.describe()).status.name).toBe('RUNNING');

      await vi.waitFor(async () => {
        expect(await historyGone(client, deliveredId)).toBe(true);
        expect(await historyGone(client, uncollectedId)).toBe(true);
      }, DELETION);
      await vi.waitFor(async () => expect(await runsOf(client, deliveredId)).toEqual([]), DELETION);
      // A job read to its end twice asks again: nothing is left, and that is no error.
      expect(await deleteClosedZdrRuns(client, deliveredId)).toBe(0);
      expect(await historyGone(client, plainId)).toBe(false);
      expect(await historyGone(client, runningId)).toBe(false);
      release();
      await running.result();
    });
  }, 180_000);
});
