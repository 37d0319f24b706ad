/**
 * Entry: `npm start`. Runs everything on this machine: Temporal (unless TEMPORAL_ADDRESS names a
 * running server), migrations, one worker and the API. Ctrl-C stops it all in order.
 *
 * | variable | default |
 * |---|---|
 * | DATABASE_URL | postgres://postgres@127.0.0.1:5432/trawl |
 * | TEMPORAL_ADDRESS | unset: start a dev server persisting to `.data/temporal.db` |
 * | TEMPORAL_PORT / TEMPORAL_UI_PORT | 7233 / 8233 |
 * | PORT / HOST | 3002 / 127.0.0.1 |
 * | BROWSER_PROFILE_KEY | unset: one made once and kept in `.data/browser-profile.key` |
 *
 * Everything else in the environment reaches the API and the worker unchanged.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../lib/config.js';
import { ensurePrerequisites } from './prerequisites.js';
import { projectRoot } from './paths.js';
import { startStack, type Stack } from './stack.js';

const log = (line: string): void => console.log(line);

function portFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (!raw) return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`${name}=${raw} is not a port number`);
  return port;
}

/** A local key for browser profiles, made on the first start, so `profile` works out of the box. */
function localProfileKey(): string {
  const dir = join(projectRoot, '.data');
  const file = join(dir, 'browser-profile.key');
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600 });
  }
  return readFileSync(file, 'utf8').trim();
}

let stack: Stack | undefined;
let stopping = false;
const startup = new AbortController();

function stopAndExit(code: number): void {
  if (!stack) {
    startup.abort();
    return;
  }
  stack.stop().then(
    () => process.exit(code),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}

/**
 * The `tsx` CLI wrapper relays the terminal's SIGINT to us even though the terminal already sent
 * it to the whole foreground group, whenever our event loop is too busy to confirm within 30 ms.
 * So one Ctrl-C can arrive twice; only a second press well after the first means "force".
 */
const REPEAT_SIGNAL_IGNORE_MS = 1_000;
let firstSignalAt = 0;

function onSignal(signal: NodeJS.Signals): void {
  if (stopping) {
    if (Date.now() - firstSignalAt < REPEAT_SIGNAL_IGNORE_MS) return;
    // Leftover children are SIGKILLed by the exit hook in managed-process.ts.
    log('[start] stopping forcefully');
    process.exit(130);
  }
  stopping = true;
  firstSignalAt = Date.now();
  log(`[start] ${signal}: stopping (press Ctrl-C again to force)`);
  stopAndExit(0);
}

async function main(): Promise<void> {
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const temporalAddress = process.env.TEMPORAL_ADDRESS || undefined;
  const uiPort = portFromEnv('TEMPORAL_UI_PORT', 8233);
  // The dashboard links jobs to the dev server's UI, wherever its port is.
  const uiUrl = process.env.TEMPORAL_UI_URL || (temporalAddress ? undefined : `http://127.0.0.1:${uiPort}`);
  const config = loadConfig({ ...process.env, ...(uiUrl && { TEMPORAL_UI_URL: uiUrl }) });
  const prerequisites = await ensurePrerequisites({ temporalCli: !temporalAddress, log });
  startup.signal.throwIfAborted();

  stack = await startStack({
    databaseUrl: process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/trawl',
    temporal: temporalAddress
      ? { address: temporalAddress }
      : {
          cliPath: prerequisites.temporalCliPath,
          port: portFromEnv('TEMPORAL_PORT', 7233),
          uiPort,
          dataDir: join(projectRoot, '.data'),
        },
    apiPort: portFromEnv('PORT', 3002),
    apiHost: process.env.HOST || '127.0.0.1',
    env: {
      CHROMIUM_PATH: prerequisites.chromiumPath,
      BROWSER_PROFILE_KEY: process.env.BROWSER_PROFILE_KEY || localProfileKey(),
      ...(uiUrl && { TEMPORAL_UI_URL: uiUrl }),
    },
    log,
    signal: startup.signal,
    onUnexpectedExit: (name) => {
      if (stopping) return;
      stopping = true;
      log(`[start] ${name} died; stopping everything`);
      stopAndExit(1);
    },
  });

  log('');
  log('Trawl is running.');
  log(`  API:          ${stack.apiUrl}`);
  log(stack.uiUrl ? `  Temporal UI:  ${stack.uiUrl}` : `  Temporal:     ${stack.temporalAddress} (external)`);
  const { path: dashboardPath, adminTeam } = config.dashboard;
  if (dashboardPath) {
    log(`  Dashboard:    ${stack.apiUrl}${dashboardPath}`);
    log(`                sign in with: npm run -s admin -- keys create --team ${adminTeam} --scopes admin`);
  }
  log('  API key:      npm run admin -- keys create --team NAME');
  log('Press Ctrl-C to stop.');
}

main().catch((err: unknown) => {
  // A Ctrl-C during start-up surfaces here as the abort, or as a child that the same Ctrl-C hit.
  if (stopping) process.exit(0);
  console.error(`[start] ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
