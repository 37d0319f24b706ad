import { describe, expect, it } from 'vitest';
import { buildTemporalServerArgs } from '../../../scripts/temporal-server.js';

/** The values following each occurrence of `flag`. */
function valuesOf(args: string[], flag: string): string[] {
  return args.flatMap((arg, i) => (arg === flag ? [args[i + 1]!] : []));
}

describe('buildTemporalServerArgs', () => {
  const base = { cliPath: '/bin/temporal', port: 7233, dataDir: '/data' };

  const FAST_QUEUES = ['history.transferProcessorMaxPollRPS=10000', 'history.timerProcessorMaxPollRPS=10000'];

  it('binds to loopback with persistence, search attributes, eager activities and unthrottled task queues', () => {
    const args = buildTemporalServerArgs({ ...base, uiPort: 8233 });
    expect(args.slice(0, 2)).toEqual(['server', 'start-dev']);
    expect(valuesOf(args, '--ip')).toEqual(['127.0.0.1']);
    expect(valuesOf(args, '--port')).toEqual(['7233']);
    expect(valuesOf(args, '--ui-port')).toEqual(['8233']);
    expect(args).not.toContain('--headless');
    expect(valuesOf(args, '--db-filename')).toEqual(['/data/temporal.db']);
    expect(valuesOf(args, '--sqlite-pragma')).toEqual(['journal_mode=WAL', 'synchronous=OFF']);
    expect(valuesOf(args, '--search-attribute')).toEqual(['TeamId=Keyword', 'JobKind=Keyword', 'ZeroDataRetention=Bool']);
    expect(valuesOf(args, '--dynamic-config-value')).toEqual(['system.enableActivityEagerExecution=true', ...FAST_QUEUES]);
    expect(valuesOf(args, '--log-level')).toEqual(['warn']);
  });

  it('runs headless without a UI port', () => {
    const args = buildTemporalServerArgs(base);
    expect(args).toContain('--headless');
    expect(args).not.toContain('--ui-port');
  });

  it('JSON-encodes extra dynamic config values', () => {
    const args = buildTemporalServerArgs({
      ...base,
      ip: '0.0.0.0',
      dynamicConfig: { 'limit.historyCount.suggestContinueAsNew': 20, 'activity.longPollTimeout': '5000ms' },
    });
    expect(valuesOf(args, '--ip')).toEqual(['0.0.0.0']);
    expect(valuesOf(args, '--dynamic-config-value')).toEqual([
      'system.enableActivityEagerExecution=true',
      ...FAST_QUEUES,
      'limit.historyCount.suggestContinueAsNew=20',
      'activity.longPollTimeout="5000ms"',
    ]);
  });

  it('lets the caller override a default dynamic config value', () => {
    const args = buildTemporalServerArgs({ ...base, dynamicConfig: { 'system.enableActivityEagerExecution': false } });
    expect(valuesOf(args, '--dynamic-config-value')).toEqual(['system.enableActivityEagerExecution=false', ...FAST_QUEUES]);
  });
});
