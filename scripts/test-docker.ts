/**
 * Entry: `npm run test:docker`. Proves the Docker deployment on this machine, from the files users
 * run (Dockerfile, docker-compose.yml), not from a copy:
 *
 *   1. builds the STAND-IN base images (docker/standins/build.sh: Docker Hub is unreachable here,
 *      so node, postgres and temporalio/temporal are local stand-ins under the official names)
 *   2. builds Trawl's image and starts the compose stack with two workers, plus a fixture site
 *      in its own container (test/docker/compose.test.yml)
 *   3. waits for /health, creates a key with the admin CLI in the API container, scrapes a page,
 *      crawls the site and restarts the worker containers in the middle of the crawl, then checks
 *      that every page is in the result exactly once, and that the services run dist/ as non-root
 *   4. takes the stack down with its volumes, whatever happened.
 *
 * Needs a running Docker daemon, root (debootstrap) and docker compose (v2 plugin or v1).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { projectRoot } from './paths.js';
import { findOrBuildTemporalCli } from './temporal-cli.js';

const PROJECT = 'trawl-docker-test';
const ENV_FILE = 'test/docker/test.env';
const API = 'http://127.0.0.1:13002';
const SITE = 'http://site:8080';
const PAGES = 40;

const composeCommand = spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' }).status === 0 ? ['docker', 'compose'] : ['docker-compose'];
const composeArgs = ['-p', PROJECT, '--env-file', ENV_FILE, '-f', 'docker-compose.yml', '-f', 'test/docker/compose.test.yml'];

function log(line: string): void {
  console.log(`[test:docker] ${line}`);
}

function compose(args: string[], options: { capture?: boolean } = {}): string {
  const [command, ...prefix] = composeCommand;
  const out = execFileSync(command!, [...prefix, ...composeArgs, ...args], {
    cwd: projectRoot,
    encoding: 'utf8',
    stdio: options.capture ? ['ignore', 'pipe', 'inherit'] : 'inherit',
  });
  return out ?? '';
}

function check(condition: boolean, message: string): void {
  if (!condition) throw new Error(message);
  log(`ok: ${message}`);
}

async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await sleep(1_000);
  }
}

async function api(key: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${API}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function main(): Promise<void> {
  log('building the stand-in base images (not the official ones: Docker Hub is unreachable here)');
  // The Temporal stand-in carries the CLI npm start uses, found or built with Go as setup does.
  const cli = await findOrBuildTemporalCli({ log });
  execFileSync('bash', ['docker/standins/build.sh'], { cwd: projectRoot, stdio: 'inherit', env: { ...process.env, TEMPORAL_CLI_PATH: cli } });
  log('building the image');
  compose(['build']);
  try {
    compose(['up', '-d', '--scale', 'worker=2']);
    await waitFor('a healthy API', 240_000, async () => ((await fetch(`${API}/health`)).status === 200 ? true : undefined));
    log('the API is healthy');

    const uid = compose(['exec', '-T', 'api', 'id', '-u'], { capture: true }).trim();
    check(uid !== '0', `the API runs as a non-root user (uid ${uid})`);
    const workers = compose(['ps', '-q', 'worker'], { capture: true }).trim().split('\n').filter(Boolean);
    check(workers.length === 2, 'two worker containers run (--scale worker=2)');
    const workerCmd = execFileSync('docker', ['inspect', '-f', '{{json .Config.Cmd}}', workers[0]!], { encoding: 'utf8' }).trim();
    check(workerCmd.includes('dist/worker/main.js'), `the workers run compiled code (${workerCmd})`);

    const key = compose(['exec', '-T', 'api', 'node', 'dist/scripts/admin.js', 'keys', 'create', '--team', 'docker-test'], { capture: true }).trim().split('\n').at(-1)!;
    check(key.startsWith('fc-'), 'the admin CLI in the API container created a key');

    const scrape = await api(key, 'POST', '/v2/scrape', { url: `${SITE}/p/0`, formats: ['markdown'] });
    check(scrape.data.markdown.includes('This is page 0 of the Docker fixture site'), 'scraped the fixture site from another container');

    // The pages are siblings (/p/1 is not under /p/0), so the crawl takes the whole site.
    const crawl = await api(key, 'POST', '/v2/crawl', { url: `${SITE}/p/0`, limit: PAGES, crawlEntireDomain: true, sitemap: 'skip', maxConcurrency: 4 });
    const going = await waitFor('the crawl to get going', 120_000, async () => {
      const status = await api(key, 'GET', `/v2/crawl/${crawl.id}`);
      return status.completed >= 5 || status.status !== 'scraping' ? status : undefined;
    });
    const before = going.completed as number;
    log(`restarting the worker containers after ${before} of ${PAGES} pages`);
    compose(['restart', 'worker']);
    const done = await waitFor('the crawl to end', 300_000, async () => {
      const status = await api(key, 'GET', `/v2/crawl/${crawl.id}`);
      return status.status === 'scraping' ? undefined : status;
    });
    check(done.status === 'completed' && done.total === PAGES && done.completed === PAGES, `the crawl completed ${done.completed}/${done.total} pages`);
    check(before < PAGES, 'the workers were restarted before the crawl ended');
    const urls: string[] = [];
    for (let page: any = done; ; page = await api(key, 'GET', new URL(page.next).pathname + new URL(page.next).search)) {
      urls.push(...page.data.map((d: any) => d.metadata.sourceURL as string));
      if (!page.next) break;
    }
    const expected = Array.from({ length: PAGES }, (_, n) => `${SITE}/p/${n}`).sort();
    check(JSON.stringify([...urls].sort()) === JSON.stringify(expected), `every page is in the crawl exactly once (${urls.length} documents)`);
    log('passed');
  } catch (err) {
    compose(['logs', '--tail', '40', 'api', 'worker']);
    throw err;
  } finally {
    compose(['down', '-v', '--remove-orphans']);
  }
}

main().catch((err: unknown) => {
  console.error(`[test:docker] FAILED: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
