/**
 * The job on every log line about it, on a real Temporal dev server: a job's workflow logs with
 * its job id and team, and hands them to its activities in a header (workflows/job-context.ts),
 * whose lines the worker's interceptor completes (worker/telemetry.ts). The worker is the one
 * worker/main.ts builds (createWorker) with Temporal's runtime logging through pino.
 */
import { randomUUID } from 'node:crypto';
import { log as activityLog } from '@temporalio/activity';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrawlActivities } from '../../../activities/index.js';
import type { ScrapePageInput, ScrapePageResult } from '../../../activities/scrape-page.js';
import { scrapeOptionsSchema } from '../../../contracts/scrape-options.js';
import { findOrBuildTemporalCli } from '../../../scripts/temporal-cli.js';
import { createWorker } from '../../../worker/create-worker.js';
import { installRuntime } from '../../../worker/telemetry.js';
import { purgeExpiredWorkflow, scrapeWorkflow } from '../../../workflows/index.js';
import { JobKindAttribute, TeamIdAttribute } from '../../../workflows/search-attributes.js';

let env: TestWorkflowEnvironment;
const lines: Record<string, unknown>[] = [];

beforeAll(async () => {
  installRuntime(pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) }), 'debug');
  const path = await findOrBuildTemporalCli({ log: () => undefined });
  env = await TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path }, searchAttributes: [TeamIdAttribute, JobKindAttribute] },
  });
}, 180_000);

afterAll(async () => {
  await env?.teardown();
});

describe('job log context', () => {
  it("puts the job id and team on the workflow's lines and its activities' lines", async () => {
    const jobId = randomUUID();
    const teamId = randomUUID();
    const activities = {
      // The input's own teamId differs: the lines must take the job's from the workflow.
      async scrapePage(_input: ScrapePageInput): Promise<ScrapePageResult> {
        activityLog.info('probe: scraping');
        return { documentId: randomUUID(), statusCode: 200, creditsUsed: 1 };
      },
      async purgeExpired() {
        activityLog.info('probe: purging');
        return { jobs: 0, tombstones: 0, media: 0, indexed: 0 };
      },
      async deleteZdrHistories() {
        return 0;
      },
    } as unknown as TrawlActivities;
    const taskQueue = `job-context-${jobId}`;
    const worker = await createWorker({ connection: env.nativeConnection, namespace: 'default', taskQueue, activities });
    await worker.runUntil(async () => {
      await env.client.workflow.execute(scrapeWorkflow, {
        taskQueue,
        workflowId: `scrape-${jobId}`,
        args: [{ jobId, teamId: 'not-the-team', url: 'https://example.com/', options: scrapeOptionsSchema.parse({}) } as ScrapePageInput],
        typedSearchAttributes: [
          { key: TeamIdAttribute, value: teamId },
          { key: JobKindAttribute, value: 'scrape' },
        ],
      });
      // Not a job: its lines carry no job fields.
      await env.client.workflow.execute(purgeExpiredWorkflow, { taskQueue, workflowId: `${taskQueue}-purge` });
    });

    const probe = lines.find((l) => l.msg === 'probe: scraping');
    expect(probe).toMatchObject({ jobId, teamId, workflowId: `scrape-${jobId}`, activityType: 'scrapePage' });
    const completed = lines.find((l) => l.msg === 'Workflow completed' && l.workflowId === `scrape-${jobId}`);
    expect(completed).toMatchObject({ jobId, teamId, workflowType: 'scrapeWorkflow' });

    const purge = lines.filter((l) => l.workflowId === `${taskQueue}-purge`);
    expect(purge.map((l) => l.msg)).toEqual(expect.arrayContaining(['probe: purging', 'Workflow completed']));
    for (const line of purge) expect(line).not.toHaveProperty('jobId');
  }, 60_000);
});
