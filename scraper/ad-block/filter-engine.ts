/**
 * The request-matching engine behind `blockAds`: Ghostery's adblocker (@ghostery/adblocker),
 * loaded with the filter lists uBlock Origin ships.
 *
 * Why these: no npm package installs a maintained copy of EasyList/EasyPrivacy (Ghostery's and
 * uBlock Origin's packages download them at run time, which this deployment cannot do; AdGuard's
 * @adguard/dnr-rulesets carries its lists but drags in ~100 packages and does not resolve from
 * the registry without overrides). Debian's `webext-ublock-origin-chromium`, installed next to
 * Debian's Chromium, does: EasyList, EasyPrivacy and uBlock Origin's own lists, refreshed with
 * every package update. Ghostery's engine reads that syntax, in pure JavaScript.
 *
 * Parsing the lists takes seconds, so the parsed engine is cached on disk, keyed by the lists'
 * contents; the cache is rebuilt when they change or the engine's format does.
 */
import { createHash } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FiltersEngine } from '@ghostery/adblocker';

/** uBlock Origin's default lists, as its extension bundles them (paths under its `assets/`). */
export const UBLOCK_LIST_FILES: readonly string[] = [
  'thirdparties/easylist/easylist.txt',
  'thirdparties/easylist/easyprivacy.txt',
  'ublock/filters.min.txt',
  'ublock/privacy.min.txt',
  'ublock/badware.min.txt',
  'ublock/quick-fixes.min.txt',
  // Exceptions that keep sites working despite the lists above.
  'ublock/unbreak.min.txt',
];

export interface FilterEngineOptions {
  /** Directory holding UBLOCK_LIST_FILES. */
  listsDir: string;
  /** Where the parsed engine is cached. @default os.tmpdir() */
  cacheDir?: string;
}

/**
 * The engine for the lists in `listsDir`, from the cache when it matches. Throws when a list
 * is missing: blocking with a partial set would look like it works.
 */
export async function loadFilterEngine(options: FilterEngineOptions): Promise<FiltersEngine> {
  const lists = await Promise.all(UBLOCK_LIST_FILES.map((file) => readFile(join(options.listsDir, file), 'utf8')));
  const hash = createHash('sha256');
  for (const list of lists) hash.update(list).update('\0');
  const cachePath = join(options.cacheDir ?? tmpdir(), `trawl-adblock-${hash.digest('hex').slice(0, 32)}.engine`);

  const cached = await readFile(cachePath).catch(() => undefined);
  if (cached) {
    try {
      return FiltersEngine.deserialize(cached);
    } catch {
      // Written by another version of the engine; rebuilt below.
    }
  }
  // Cosmetic (element hiding) rules are not loaded: scraped content is the DOM, which hiding does
  // not change; cookie banners are dismissed in the page instead (cookie-banners.ts).
  const engine = FiltersEngine.parse(lists.join('\n'), { loadCosmeticFilters: false, loadNetworkFilters: true });
  // Renamed into place, so a worker starting alongside never reads half a file. The cache only
  // saves time: a read-only temp directory costs the parse at the next start, nothing more.
  const partial = `${cachePath}.${process.pid}`;
  await writeFile(partial, engine.serialize())
    .then(() => rename(partial, cachePath))
    .catch(() => undefined);
  return engine;
}
