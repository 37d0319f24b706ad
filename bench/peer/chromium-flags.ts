/**
 * The Chromium the peer's PlaywrightCrawler drives: the same Debian binary and the same flags as
 * Trawl's browser pool (worker/browser/browser-pool.ts), so both sides render with one browser.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-dev-shm-usage',
] as const;
