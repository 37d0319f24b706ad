/**
 * The Chromium the peer's PlaywrightCrawler drives: the same Debian binary and the same flags as
 * Trawl's browser pool, so both sides render with one browser.
 */
export { CHROMIUM_ARGS as CHROMIUM_FLAGS } from '../../browser/browser-pool.js';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
