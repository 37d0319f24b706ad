import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../lib/config.js';
import { createContentBlocker } from '../../../scraper/ad-block/content-blocker.js';
import { loadFilterEngine, UBLOCK_LIST_FILES } from '../../../scraper/ad-block/filter-engine.js';
import { requestBlocker } from '../../../scraper/ad-block/request-blocker.js';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'trawl-adblock-test-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** A lists directory shaped like uBlock Origin's, with `rules` in EasyList and nothing else. */
async function listsDir(name: string, rules: string[]): Promise<string> {
  const dir = join(work, name);
  for (const file of UBLOCK_LIST_FILES) {
    await mkdir(dirname(join(dir, file)), { recursive: true });
    await writeFile(join(dir, file), file.endsWith('easylist.txt') ? `[Adblock Plus 2.0]\n${rules.join('\n')}\n` : '! empty\n');
  }
  return dir;
}

const page = 'https://news.example/article';

describe('loadFilterEngine and requestBlocker', () => {
  it('blocks by the rules and their options, exceptions winning', async () => {
    const dir = await listsDir('rules', ['/popunder.js', '||tracker.example^$third-party', '/banner/*', '@@/banner/house-ad.png']);
    const blocks = requestBlocker(await loadFilterEngine({ listsDir: dir, cacheDir: join(work, 'cache-a') }));
    const ask = (url: string, resourceType = 'script', documentUrl = page) => blocks({ url, resourceType, documentUrl });

    expect(ask('https://news.example/js/popunder.js')).toBe(true);
    expect(ask('https://cdn.tracker.example/t.js')).toBe(true);
    // First party on the tracker's own site.
    expect(ask('https://tracker.example/t.js', 'script', 'https://tracker.example/')).toBe(false);
    expect(ask('https://news.example/banner/x.png', 'image')).toBe(true);
    expect(ask('https://news.example/banner/house-ad.png', 'image')).toBe(false);
    expect(ask('https://news.example/app.js')).toBe(false);
  });

  it('caches the parsed engine by the lists’ contents and rebuilds a broken cache', async () => {
    const dir = await listsDir('cached', ['/popunder.js']);
    const cacheDir = join(work, 'cache-b');
    await mkdir(cacheDir);
    await loadFilterEngine({ listsDir: dir, cacheDir });
    const [cached] = await readdir(cacheDir);
    expect(cached).toMatch(/^trawl-adblock-[0-9a-f]{32}\.engine$/);

    await writeFile(join(cacheDir, cached!), 'not an engine');
    const blocks = requestBlocker(await loadFilterEngine({ listsDir: dir, cacheDir }));
    expect(blocks({ url: 'https://a.example/popunder.js', resourceType: 'script', documentUrl: page })).toBe(true);

    await writeFile(join(dir, UBLOCK_LIST_FILES[0]!), '/other.js\n');
    await loadFilterEngine({ listsDir: dir, cacheDir });
    expect(await readdir(cacheDir)).toHaveLength(2);
  });

  it('fails when a list is missing rather than blocking with part of them', async () => {
    const dir = await listsDir('partial', []);
    await rm(join(dir, 'thirdparties/easylist/easyprivacy.txt'));
    await expect(loadFilterEngine({ listsDir: dir, cacheDir: work })).rejects.toThrow(/easyprivacy/);
  });
});

describe('the lists uBlock Origin ships (Debian webext-ublock-origin-chromium)', () => {
  const { listsDir: installed } = loadConfig({}).adblock;

  it('block the fixture ad and tracker paths the e2e test relies on, and leave ordinary resources alone', async () => {
    const blocks = requestBlocker(await loadFilterEngine({ listsDir: installed!, cacheDir: work }));
    const site = 'http://127.0.0.1:4000';
    const ask = (path: string, resourceType: string) => blocks({ url: `${site}${path}`, resourceType, documentUrl: `${site}/ads-page` });
    // EasyList's `/jquery.popunder.js` and EasyPrivacy's `/__utm.gif`, first party and all.
    expect(ask('/jquery.popunder.js', 'script')).toBe(true);
    expect(ask('/__utm.gif', 'image')).toBe(true);
    expect(blocks({ url: 'https://securepubads.g.doubleclick.net/tag/js/gpt.js', resourceType: 'script', documentUrl: `${site}/` })).toBe(true);
    expect(ask('/img/photo.png', 'image')).toBe(false);
    expect(ask('/app.js', 'script')).toBe(false);
  });
});

describe('createContentBlocker', () => {
  it('handles cookie banners only when request blocking is off or the default lists are missing', async () => {
    const warnings: unknown[] = [];
    const log = { warn: (...args: unknown[]) => warnings.push(args), info: () => undefined } as never;
    const off = await createContentBlocker({ listsDir: null, required: false, log });
    expect(off.blocks).toBeUndefined();
    expect(off.initScript).toContain('autoconsentReceiveMessage');
    expect(warnings).toEqual([]);

    const missing = await createContentBlocker({ listsDir: join(work, 'absent'), required: false, log });
    expect(missing.blocks).toBeUndefined();
    expect(JSON.stringify(warnings)).toMatch(/webext-ublock-origin-chromium/);
  });

  it('fails when an explicitly configured directory is missing', async () => {
    await expect(createContentBlocker({ listsDir: join(work, 'absent'), required: true })).rejects.toThrow();
  });
});
