/**
 * Locates the system Chromium the browser engine drives, and the ad-block filter lists it uses,
 * installing Debian's packages when we are root on an apt system. Playwright's own browser
 * download is not used: our machines reach package registries, not Playwright's CDN.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { DEFAULT_ADBLOCK_LISTS_DIR } from '../lib/config.js';
import { findOnPath, isExecutable } from './executables.js';
import type { LogSink } from './managed-process.js';

export const CHROMIUM_SYSTEM_PATHS = ['/usr/bin/chromium', '/usr/bin/chromium-browser'] as const;

/** uBlock Origin's bundled EasyList/EasyPrivacy lists, from Debian's webext-ublock-origin-chromium. */
export const ADBLOCK_LISTS_PACKAGE = 'webext-ublock-origin-chromium';

export interface ChromiumLookup {
  env: NodeJS.ProcessEnv;
  isExecutable: (path: string) => boolean;
}

/**
 * CHROMIUM_PATH, then Debian's and Ubuntu's locations, then `chromium` on PATH. A CHROMIUM_PATH
 * that is not executable is an error: the user asked for that binary.
 */
export function findChromium(lookup: ChromiumLookup): string | undefined {
  const explicit = lookup.env.CHROMIUM_PATH;
  if (explicit) {
    if (!lookup.isExecutable(explicit)) throw new Error(`CHROMIUM_PATH=${explicit} is not an executable file.`);
    return explicit;
  }
  return CHROMIUM_SYSTEM_PATHS.find((path) => lookup.isExecutable(path)) ?? findOnPath('chromium', lookup.env, lookup.isExecutable);
}

export interface FindOrInstallChromiumOptions {
  log?: LogSink;
}

export async function findOrInstallChromium(opts: FindOrInstallChromiumOptions = {}): Promise<string> {
  const log = opts.log ?? console.log;
  const lookup: ChromiumLookup = { env: process.env, isExecutable };
  const found = findChromium(lookup);
  const missing = [...(found ? [] : ['chromium']), ...(adblockListsMissing() ? [ADBLOCK_LISTS_PACKAGE] : [])];
  if (missing.length === 0) return found!;

  const aptGet = findOnPath('apt-get');
  if (!aptGet || process.getuid?.() !== 0) {
    // Without the lists the worker still runs (it warns and keeps cookie-banner handling); without
    // Chromium it cannot.
    if (found) {
      log(`[setup] ${ADBLOCK_LISTS_PACKAGE} is not installed: blockAds will only handle cookie banners`);
      return found;
    }
    throw new Error(
      'Chromium was not found (looked at CHROMIUM_PATH, /usr/bin/chromium, /usr/bin/chromium-browser and `chromium` on PATH).\n' +
        (aptGet
          ? `Install it with \`sudo apt-get update && sudo apt-get install -y chromium ${ADBLOCK_LISTS_PACKAGE}\``
          : 'Install the `chromium` package with your package manager') +
        ', or set CHROMIUM_PATH to a Chromium or Chrome executable.',
    );
  }
  log(`[setup] installing ${missing.join(' ')}: apt-get update && apt-get install -y ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  await run(aptGet, ['update'], env);
  await run(aptGet, ['install', '-y', ...missing], env);
  const installed = findChromium(lookup);
  if (!installed) throw new Error('apt-get installed chromium, but no chromium executable was found afterwards.');
  return installed;
}

/** Only the default location is installed for; an explicit ADBLOCK_LISTS_DIR is the user's business. */
function adblockListsMissing(): boolean {
  const configured = process.env.ADBLOCK_LISTS_DIR;
  return !configured && !existsSync(DEFAULT_ADBLOCK_LISTS_DIR);
}

async function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const child = spawn(command, args, { env, stdio: ['ignore', 'inherit', 'inherit'] });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (code !== 0) {
    throw new Error(`\`${command} ${args.join(' ')}\` failed (exit ${code}); install the packages by hand (or set CHROMIUM_PATH).`);
  }
}
