/**
 * The page-job workflow (crawls and batch scrapes) on a real Temporal dev server, with its
 * activities stubbed by an in-memory frontier: no Postgres, no Chromium, seconds per case.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { ApplicationFailure } from '@temporalio/common';
import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import type { SliceEnd } from '../../../activities/crawl-slice.js';
import type { TrawlActivities } from '../../../activities/index.js';
import { scrapeOptionsSchema } from '../../../contracts/scrape-options.js';
import type { CrawlerSettings, FrontierPage } from '../../../lib/crawl/settings.js';
import { CREDITS_EXHAUSTED_WARNING } from '../../../lib/credits.js';
import { batchScrapeWorkflow, crawlWorkflow } from '../../../workflows/index.js';
import { getProgressQuery } from '../../../workflows/messages.js';
import type { PageJobInput } from '../../../workflows/page-job.js';
import { workflowTestEnvForFile } from '../../helpers/workflow-test-env.js';

/** Histories of crawls, committed: today's workflow code must replay them (README, Extending Trawl). */
const HISTORIES = new URL('../../fixtures/workflow-histories/', import.meta.url);

const workflowEnv = workflowTestEnvForFile();
let seq = 0;

/** A frontier in memory, with the bookkeeping activities over it and a scripted crawlPage. */
class FakeFrontier {
  queued: FrontierPage[] = [];
  scraped: string[] = [];
  failures: string[] = [];
  finishes: Array<{ status: string; warning?: string; retireOpenPages?: boolean }> = [];
  inFlight = 0;
  maxInFlight = 0;
  /** Page counts of the crawlSlice activities, and pages run alone through crawlPage. */
  slices: number[] = [];
  alone: string[] = [];
  /** Called when the job asks to complete; returning false says pages were appended meanwhile. */
  onFinish: () => boolean = () => true;
  /** Pages a scraped page adds to the frontier, as a crawl's link discovery does. */
  discover: (page: FrontierPage) => number = () => 0;
  /** How one page goes; the default takes a few ms and succeeds. */
  scrape: (page: FrontierPage) => Promise<void> = () => new Promise((r) => setTimeout(r, 5));

  private async scrapeOne(page: FrontierPage) {
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      await this.scrape(page);
      this.scraped.push(page.url);
      return { documentId: `doc-${page.url}`, creditsUsed: 1, enqueued: this.discover(page) };
    } finally {
      this.inFlight -= 1;
    }
  }

  add(count: number, prefix = 'p'): void {
    const start = this.queued.length + this.scraped.length;
    for (let i = 0; i < count; i++) {
      const url = `https://site.test/${prefix}${start + i}`;
      this.queued.push({ url, urlKey: url, depth: 0 });
    }
  }

  activities(): Partial<TrawlActivities> {
    return {
      claimPages: async ({ max }) => this.queued.splice(0, max),
      // The frontier is seeded by the test; a crawl's kickoff only reports its robots.txt delay.
      startCrawl: async () => ({ queued: 0 }),
      crawlPage: async ({ page }) => {
        this.alone.push(page.url);
        return this.scrapeOne(page);
      },
      // As the real activity does, on the in-memory frontier: claims a page at a time until its
      // time or page budget runs out, waits while other lanes have pages in flight, hands back a
      // page whose failure another attempt may fix, and stops at a refused charge.
      crawlSlice: async ({ maxPages, sliceMs }) => {
        const stopAt = Date.now() + sliceMs;
        const totals = { claimed: 0, completed: 0, failed: 0, creditsUsed: 0, documentIds: [] as string[] };
        const end = (ended: SliceEnd, handBack?: FrontierPage) => {
          this.slices.push(totals.claimed);
          return { ...totals, ended, ...(handBack && { handBack }) };
        };
        for (;;) {
          if (Date.now() >= stopAt) return end('time');
          if (totals.claimed >= maxPages) return end('budget');
          const page = this.queued.shift();
          if (!page) {
            if (this.inFlight === 0) return end('drained');
            await new Promise((r) => setTimeout(r, 5));
            continue;
          }
          totals.claimed += 1;
          try {
            const done = await this.scrapeOne(page);
            totals.completed += 1;
            totals.creditsUsed += done.creditsUsed;
            totals.documentIds.push(done.documentId);
          } catch (err) {
            if (!(err instanceof ApplicationFailure && err.nonRetryable)) return end('handed-back', page);
            if ((err.details?.[0] as { code: string } | undefined)?.code === 'INSUFFICIENT_CREDITS') return end('out-of-credits');
            this.failures.push(page.url);
            totals.failed += 1;
          }
        }
      },
      recordPageFailure: async ({ page }) => {
        this.failures.push(page.url);
      },
      finishJob: async (input) => {
        this.finishes.push(input);
        return input.status === 'completed' && !input.retireOpenPages ? this.onFinish() : true;
      },
      deliverWebhook: async () => ({ status: 200 }),
    };
  }
}

function batchInput(overrides: Partial<PageJobInput> = {}): PageJobInput {
  return {
    jobId: `00000000-0000-4000-8000-${String(++seq).padStart(12, '0')}`,
    teamId: 'team',
    kind: 'batch_scrape',
    scrapeOptions: scrapeOptionsSchema.parse({}),
    ...overrides,
  };
}

/** Runs `body` with a worker for `frontier`'s activities. */
function withWorker<T>(frontier: FakeFrontier, body: (taskQueue: string) => Promise<T>): Promise<T> {
  return workflowEnv().withWorker(frontier.activities(), body);
}

describe('page-job workflow', () => {
  it('continues-as-new with pages in flight and scrapes every page exactly once', async () => {
    const frontier = new FakeFrontier();
    frontier.add(23);
    const { result, runs } = await withWorker(frontier, async (taskQueue) => {
      const handle = await workflowEnv().env.client.workflow.start(batchScrapeWorkflow, {
        taskQueue,
        workflowId: `can-${seq}`,
        args: [batchInput({ maxConcurrency: 4, pagesPerRun: 5 })],
      });
      const done = await handle.result();
      return { result: done, runs: (await handle.query(getProgressQuery)).runs };
    });
    expect(result).toMatchObject({ status: 'completed', completed: 23, failed: 0, creditsUsed: 23 });
    expect([...frontier.scraped].sort()).toEqual([...new Set(frontier.scraped)].sort());
    expect(frontier.scraped).toHaveLength(23);
    expect(frontier.maxInFlight).toBeLessThanOrEqual(4);
    expect(frontier.maxInFlight).toBeGreaterThan(1);
    // 23 pages at 5 per run: five runs, and the job completed once, by the last.
    expect(runs).toBe(5);
    expect(frontier.finishes).toEqual([{ jobId: expect.any(String), status: 'completed' }]);
  }, 60_000);

  it('runs pages in frontier slices within maxConcurrency, and runs a page a slice handed back alone', async () => {
    const frontier = new FakeFrontier();
    frontier.add(40);
    let flaky = true;
    frontier.scrape = async (page) => {
      await new Promise((r) => setTimeout(r, 5));
      // Fails once, in its slice; the workflow runs it again alone.
      if (page.url.endsWith('/p7') && flaky) {
        flaky = false;
        throw new Error('connection reset');
      }
    };
    const result = await withWorker(frontier, async (taskQueue) =>
      workflowEnv().env.client.workflow.execute(batchScrapeWorkflow, {
        taskQueue,
        workflowId: `slices-${seq}`,
        args: [batchInput({ maxConcurrency: 10 })],
      }),
    );
    expect(result).toMatchObject({ status: 'completed', completed: 40, failed: 0, creditsUsed: 40 });
    expect([...frontier.scraped].sort()).toEqual([...new Set(frontier.scraped)].sort());
    expect(frontier.scraped).toHaveLength(40);
    expect(frontier.maxInFlight).toBeLessThanOrEqual(10);
    // Every page was claimed by a slice once; p7 was handed back and ran again alone.
    expect(frontier.slices.reduce((a, b) => a + b, 0)).toBe(40);
    expect(frontier.alone).toEqual(['https://site.test/p7']);
    // Lanes, not pages: far fewer activities than pages.
    expect(frontier.slices.length).toBeLessThan(25);
  }, 60_000);

  it('keeps every other lane busy while one page is slow', async () => {
    // A batch holds its lanes until its slowest page ends; a slice holds only its own.
    const frontier = new FakeFrontier();
    frontier.add(120);
    let maxBesideSlow = 0;
    let slowRunning = false;
    frontier.scrape = async (page) => {
      if (page.url.endsWith('/p3')) {
        slowRunning = true;
        while (frontier.scraped.length < 100) await new Promise((r) => setTimeout(r, 5));
        slowRunning = false;
        return;
      }
      // Past the pages that started beside it, while it still runs.
      if (slowRunning && frontier.scraped.length >= 30) maxBesideSlow = Math.max(maxBesideSlow, frontier.inFlight);
      await new Promise((r) => setTimeout(r, 5));
    };
    const result = await withWorker(frontier, async (taskQueue) =>
      workflowEnv().env.client.workflow.execute(batchScrapeWorkflow, {
        taskQueue,
        workflowId: `slow-lane-${seq}`,
        args: [batchInput({ maxConcurrency: 10 })],
      }),
    );
    expect(result).toMatchObject({ status: 'completed', completed: 120 });
    expect(maxBesideSlow).toBe(10);
  }, 60_000);

  it('runs one page per activity when pages must start a delay apart', async () => {
    const frontier = new FakeFrontier();
    frontier.add(3);
    const result = await withWorker(frontier, async (taskQueue) =>
      workflowEnv().env.client.workflow.execute(batchScrapeWorkflow, {
        taskQueue,
        workflowId: `delay-${seq}`,
        args: [batchInput({ maxConcurrency: 10, delaySecs: 0.05 })],
      }),
    );
    expect(result.completed).toBe(3);
    expect(frontier.slices).toEqual([]);
    expect(frontier.alone).toHaveLength(3);
  }, 60_000);

  it('stops claiming when credits run out mid-crawl and completes with a warning', async () => {
    const frontier = new FakeFrontier();
    frontier.add(30);
    let paid = 0;
    frontier.scrape = async () => {
      await new Promise((r) => setTimeout(r, 5));
      if (++paid > 7) {
        throw ApplicationFailure.create({
          type: 'NonRetryablePageError',
          message: 'Payment Required: Insufficient credits',
          nonRetryable: true,
          details: [{ code: 'INSUFFICIENT_CREDITS' }],
        });
      }
    };
    const result = await withWorker(frontier, async (taskQueue) =>
      workflowEnv().env.client.workflow.execute(batchScrapeWorkflow, {
        taskQueue,
        workflowId: `credits-${seq}`,
        args: [batchInput({ maxConcurrency: 2 })],
      }),
    );
    expect(result.status).toBe('completed');
    expect(result.completed).toBe(7);
    // A refused page is not a failed page.
    expect(result.failed).toBe(0);
    expect(frontier.failures).toEqual([]);
    expect(frontier.finishes).toEqual([
      { jobId: expect.any(String), status: 'completed', warning: CREDITS_EXHAUSTED_WARNING, retireOpenPages: true },
    ]);
    // It stopped claiming: most of the frontier was never handed out.
    expect(frontier.queued.length).toBeGreaterThan(10);
  }, 60_000);

  it('scrapes pages appended while the job was finishing, then completes', async () => {
    const frontier = new FakeFrontier();
    frontier.add(3);
    let appended = false;
    frontier.onFinish = () => {
      if (appended) return true;
      appended = true;
      frontier.add(4, 'late');
      return false;
    };
    const result = await withWorker(frontier, async (taskQueue) =>
      workflowEnv().env.client.workflow.execute(batchScrapeWorkflow, { taskQueue, workflowId: `append-${seq}`, args: [batchInput()] }),
    );
    expect(result).toMatchObject({ status: 'completed', completed: 7 });
    expect(frontier.scraped.filter((u) => u.includes('late'))).toHaveLength(4);
    expect(frontier.finishes.map((f) => f.status)).toEqual(['completed', 'completed']);
  }, 60_000);

  it('records a cancel that arrives while pages are draining, and stops', async () => {
    const frontier = new FakeFrontier();
    frontier.add(3);
    let release!: () => void;
    const stuck = new Promise<void>((r) => (release = r));
    frontier.scrape = () => stuck;
    const outcome = await withWorker(frontier, async (taskQueue) => {
      const handle = await workflowEnv().env.client.workflow.start(batchScrapeWorkflow, {
        taskQueue,
        workflowId: `cancel-${seq}`,
        args: [batchInput({ maxConcurrency: 3 })],
      });
      // All three pages in flight, nothing queued: the job is waiting for them to drain.
      for (let i = 0; i < 100 && (await handle.query(getProgressQuery)).inFlight < 3; i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(await handle.query(getProgressQuery)).toMatchObject({ inFlight: 3, phase: 'scraping' });
      await handle.cancel();
      const settled = await handle.result().then(
        () => 'completed',
        (err: unknown) => (err as Error).name,
      );
      release();
      return settled;
    });
    expect(outcome).toBe('WorkflowFailedError');
    expect(frontier.finishes).toEqual([{ jobId: expect.any(String), status: 'cancelled' }]);
  }, 60_000);
});

describe('page-job histories replay on today\'s workflow code', () => {
  // A change to page-job-run.ts that alters the commands an open crawl issues breaks its replay
  // here (DeterminismViolationError), before it breaks crawls in flight (README, Extending Trawl).
  const crawler: CrawlerSettings = {
    startUrl: 'https://site.test/',
    includePaths: [],
    excludePaths: [],
    regexOnFullURL: false,
    limit: 100,
    sitemap: 'skip',
    crawlEntireDomain: false,
    allowSubdomains: false,
    allowExternalLinks: false,
    ignoreRobotsTxt: false,
    ignoreQueryParameters: false,
    deduplicateSimilarURLs: false,
  };

  it.each([
    ['slices', 'frontier slices, continued-as-new', 12, { maxConcurrency: 3, pagesPerRun: 6 }],
    ['spaced', 'one page per activity, a delay apart', 3, { delaySecs: 0.02 }],
  ] as const)('a crawl run in %s (%s) replays every run, and so do the histories committed before', async (name, _mode, pages, overrides) => {
    const frontier = new FakeFrontier();
    frontier.add(pages);
    const workflowId = `replay-${name}-${seq + 1}`;
    await withWorker(frontier, (taskQueue) =>
      workflowEnv().env.client.workflow.execute(crawlWorkflow, {
        taskQueue,
        workflowId,
        args: [{ ...batchInput(overrides), kind: 'crawl', crawler }],
      }),
    );
    expect(frontier.scraped).toHaveLength(pages);
    const histories = [];
    for await (const execution of workflowEnv().env.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
      histories.push(await workflowEnv().env.client.workflow.getHandle(workflowId, execution.runId).fetchHistory());
    }
    expect(histories.length).toBeGreaterThanOrEqual('pagesPerRun' in overrides ? 2 : 1);
    // RECORD_WORKFLOW_HISTORIES=1 adds today's histories beside those committed before.
    if (process.env.RECORD_WORKFLOW_HISTORIES) {
      const recordedOn = new Date().toISOString().slice(0, 10);
      for (const [i, history] of histories.entries()) writeFileSync(new URL(`${name}-${recordedOn}-${i}.json`, HISTORIES), historyToJSON(history));
    }
    const committed = readdirSync(HISTORIES).filter((file) => file.startsWith(`${name}-`));
    expect(committed.length).toBeGreaterThan(0);
    for (const file of committed) histories.push(historyFromJSON(JSON.parse(readFileSync(new URL(file, HISTORIES), 'utf8'))));
    for (const history of histories) {
      await expect(Worker.runReplayHistory({ workflowBundle: workflowEnv().workflowBundle }, history, workflowId)).resolves.toBeUndefined();
    }
  }, 60_000);
});
