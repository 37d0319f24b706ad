/**
 * Start-up and idle memory of the two services, run from the TypeScript sources through tsx (as
 * before `npm run build`: the worker bundles its workflows with webpack at every start) and from
 * dist/ (compiled JavaScript, the workflow bundle prebuilt). Needs `npm run build` first.
 */
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { projectRoot } from '../../scripts/paths.js';
import { rssBytes } from '../process-stats.js';
import type { BenchSettings, ResultRow, Scenario, ScenarioResult } from '../scenario.js';
import { startBenchStack } from '../trawl/bench-stack.js';

const MB = 2 ** 20;
/** Long enough for start-up garbage to be collected and the first schedules and polls to settle. */
const IDLE_WAIT_MS = 10_000;
const MODES = [
  { name: 'sources (tsx, bundled at start)', compiled: false },
  { name: 'compiled (dist/, prebuilt bundle)', compiled: true },
] as const;

export const startup: Scenario = {
  name: 'startup',
  description: `Start-up of the API and one worker, spawned side by side once Temporal and the database are ready: seconds from spawn until the worker polls its task queue and until the API's /health answers 200 (which needs a polling worker), then VmRSS of each process after ${IDLE_WAIT_MS / 1000} s idle. From the sources through tsx with no WORKFLOW_BUNDLE, as \`npm start\` and the old image ran them, and from dist/ after \`npm run build\`.`,
  run,
};

async function run(settings: BenchSettings): Promise<ScenarioResult> {
  if (!existsSync(`${projectRoot}/dist/workflow-bundle.js`)) throw new Error('dist/ is missing: run `npm run build` first');
  const rows: ResultRow[] = [];
  for (const mode of MODES) {
    const figures = { poll: [] as number[], health: [] as number[], apiRss: [] as number[], workerRss: [] as number[] };
    for (let i = 0; i < settings.runs; i++) {
      let spawnedAt = 0;
      let polledAt = 0;
      let healthyAt = 0;
      const bench = await startBenchStack({
        compiled: mode.compiled,
        onLine: (line) => {
          if (line.startsWith('[stack] starting the API')) spawnedAt = performance.now();
          else if (/^\[stack\] worker-1 .*is polling/.test(line)) polledAt = performance.now();
          else if (line.startsWith('[stack] api ready')) healthyAt = performance.now();
        },
      });
      try {
        await sleep(IDLE_WAIT_MS);
        figures.poll.push((polledAt - spawnedAt) / 1000);
        figures.health.push((healthyAt - spawnedAt) / 1000);
        figures.apiRss.push((rssBytes(bench.apiPid()) ?? NaN) / MB);
        figures.workerRss.push((rssBytes(bench.stack.workers[0]!.pid) ?? NaN) / MB);
        settings.log(
          `  ${mode.name}: worker polling after ${figures.poll.at(-1)!.toFixed(1)} s, API healthy after ${figures.health.at(-1)!.toFixed(1)} s; ` +
            `idle RSS API ${figures.apiRss.at(-1)!.toFixed(0)} MB, worker ${figures.workerRss.at(-1)!.toFixed(0)} MB`,
        );
      } finally {
        await bench.stop();
      }
    }
    rows.push(
      { metric: `${mode.name}: worker's first poll`, unit: 's', values: figures.poll },
      { metric: `${mode.name}: API healthy`, unit: 's', values: figures.health },
      { metric: `${mode.name}: API idle RSS`, unit: 'MB', values: figures.apiRss },
      { metric: `${mode.name}: worker idle RSS`, unit: 'MB', values: figures.workerRss },
    );
  }
  return { rows, notes: ['The worker idle RSS is the Node process alone: Chromium starts with the first page that needs it.'] };
}
