/**
 * What `blockAds` does in the browser: ad and tracker requests aborted by the filter lists
 * (filter-engine.ts), cookie banners dismissed in the page (cookie-banners.ts). The http engine
 * needs neither: it fetches the one document and nothing it references.
 */
import { access } from 'node:fs/promises';
import type { Logger } from '../../lib/log.js';
import type { ContentBlocker } from '../../browser/browser-pool.js';
import { cookieBannerHandler } from './cookie-banners.js';
import { loadFilterEngine } from './filter-engine.js';
import { requestBlocker } from './request-blocker.js';

export interface ContentBlockerOptions {
  /** uBlock Origin's `assets/` directory; null turns request blocking off. */
  listsDir: string | null;
  /** The directory was configured explicitly, so its absence is an error rather than a warning. */
  required: boolean;
  log?: Logger;
  /** Where the parsed lists are cached. @default os.tmpdir() */
  cacheDir?: string;
}

export async function createContentBlocker(options: ContentBlockerOptions): Promise<ContentBlocker> {
  const { listsDir, log } = options;
  if (listsDir === null) return cookieBannerHandler;
  const present = await access(listsDir).then(
    () => true,
    () => false,
  );
  if (!present && !options.required) {
    log?.warn(
      { listsDir },
      'ad-block: no filter lists found, so blockAds will not block ad and tracker requests (cookie banners are still handled); ' +
        'install Debian\'s webext-ublock-origin-chromium, or set ADBLOCK_LISTS_DIR',
    );
    return cookieBannerHandler;
  }
  const startedAt = Date.now();
  const engine = await loadFilterEngine({ listsDir, cacheDir: options.cacheDir });
  log?.info({ listsDir, ms: Date.now() - startedAt }, 'ad-block: filter lists loaded');
  return { ...cookieBannerHandler, blocks: requestBlocker(engine) };
}
