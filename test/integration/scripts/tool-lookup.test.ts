import { describe, expect, it, vi } from 'vitest';
import { findChromium } from '../../../scripts/chromium.js';
import { findOnPath } from '../../../scripts/executables.js';
import { findTemporalCli, goBuildEnv, type TemporalCliLookup } from '../../../scripts/temporal-cli.js';

/** An isExecutable that knows only `paths`. */
function only(...paths: string[]): (path: string) => boolean {
  const set = new Set(paths);
  return (path) => set.has(path);
}

describe('findTemporalCli', () => {
  const lookup = (env: NodeJS.ProcessEnv, executables: string[], goPath?: string): TemporalCliLookup => ({
    env,
    cacheDir: '/repo/.cache/bin',
    isExecutable: only(...executables),
    goPath: () => goPath,
  });
  const everywhere = ['/opt/temporal', '/usr/local/bin/temporal', '/repo/.cache/bin/temporal', '/go/bin/temporal'];

  it('prefers TEMPORAL_CLI_PATH, then PATH, then the project cache, then GOPATH', () => {
    const env = { TEMPORAL_CLI_PATH: '/opt/temporal', PATH: '/usr/bin:/usr/local/bin' };
    expect(findTemporalCli(lookup(env, everywhere, '/go'))).toEqual({ path: '/opt/temporal', source: 'TEMPORAL_CLI_PATH' });
    expect(findTemporalCli(lookup({ PATH: env.PATH }, everywhere, '/go'))).toEqual({ path: '/usr/local/bin/temporal', source: 'PATH' });
    expect(findTemporalCli(lookup({ PATH: '/usr/bin' }, everywhere, '/go'))).toEqual({ path: '/repo/.cache/bin/temporal', source: 'cache' });
    expect(findTemporalCli(lookup({ PATH: '/usr/bin' }, ['/go/bin/temporal'], '/go'))).toEqual({ path: '/go/bin/temporal', source: 'GOPATH' });
    expect(findTemporalCli(lookup({ PATH: '/usr/bin' }, [], '/go'))).toBeUndefined();
  });

  it('asks Go for GOPATH only when the cheaper places are empty', () => {
    const goPath = vi.fn(() => '/go');
    findTemporalCli({ env: { PATH: '/usr/local/bin' }, cacheDir: '/c', isExecutable: only('/usr/local/bin/temporal'), goPath });
    expect(goPath).not.toHaveBeenCalled();
  });

  it('rejects a TEMPORAL_CLI_PATH that is not executable instead of looking elsewhere', () => {
    expect(() => findTemporalCli(lookup({ TEMPORAL_CLI_PATH: '/nope', PATH: '/usr/local/bin' }, everywhere))).toThrow(
      'TEMPORAL_CLI_PATH=/nope is not an executable file.',
    );
  });
});

describe('goBuildEnv', () => {
  it('drops GOFLAGS and GOTOOLCHAIN, disables cgo and workspaces, and sets GOBIN', () => {
    const env = goBuildEnv({ PATH: '/bin', GOFLAGS: '-mod=vendor', GOTOOLCHAIN: 'local', HOME: '/root' }, '/tmp/bin');
    expect(env).toEqual({ PATH: '/bin', HOME: '/root', CGO_ENABLED: '0', GOWORK: 'off', GOBIN: '/tmp/bin' });
  });
});

describe('findChromium', () => {
  it('prefers CHROMIUM_PATH, then /usr/bin/chromium, /usr/bin/chromium-browser, then PATH', () => {
    const all = ['/opt/chrome', '/usr/bin/chromium', '/usr/bin/chromium-browser', '/snap/bin/chromium'];
    const env = { PATH: '/snap/bin' };
    expect(findChromium({ env: { ...env, CHROMIUM_PATH: '/opt/chrome' }, isExecutable: only(...all) })).toBe('/opt/chrome');
    expect(findChromium({ env, isExecutable: only(...all) })).toBe('/usr/bin/chromium');
    expect(findChromium({ env, isExecutable: only(...all.slice(2)) })).toBe('/usr/bin/chromium-browser');
    expect(findChromium({ env, isExecutable: only('/snap/bin/chromium') })).toBe('/snap/bin/chromium');
    expect(findChromium({ env, isExecutable: only() })).toBeUndefined();
  });

  it('rejects a CHROMIUM_PATH that is not executable', () => {
    expect(() => findChromium({ env: { CHROMIUM_PATH: '/nope' }, isExecutable: only('/usr/bin/chromium') })).toThrow(
      'CHROMIUM_PATH=/nope is not an executable file.',
    );
  });
});

describe('findOnPath', () => {
  it('takes the first directory that has the executable and skips empty entries', () => {
    expect(findOnPath('go', { PATH: '::/a:/b' }, only('/a/go', '/b/go'))).toBe('/a/go');
    expect(findOnPath('go', {}, only('/a/go'))).toBeUndefined();
  });
});
