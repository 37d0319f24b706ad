import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { descendantsOf, killSurvivors, listProcesses, parseProcStat, type ProcessEntry } from '../../../scripts/process-tree.js';

describe('parseProcStat', () => {
  it('reads pid, ppid and start time even when the command name has spaces and parentheses', () => {
    const line = '4242 (Web Content (x)) S 4200 4242 4200 0 -1 4194560 1 0 0 0 5 3 0 0 20 0 12 0 987654 1000 50 18446744073709551615';
    expect(parseProcStat(line)).toEqual({ pid: 4242, ppid: 4200, startTime: '987654' });
  });

  it('returns undefined for a line it cannot read', () => {
    expect(parseProcStat('garbage')).toBeUndefined();
  });
});

describe('descendantsOf', () => {
  it('walks the whole tree below a pid, nearest first, and survives parent-link cycles', () => {
    const table: ProcessEntry[] = [
      { pid: 1, ppid: 0, startTime: 'a' },
      { pid: 10, ppid: 1, startTime: 'b' },
      { pid: 11, ppid: 10, startTime: 'c' },
      { pid: 12, ppid: 11, startTime: 'd' },
      { pid: 13, ppid: 10, startTime: 'e' },
      { pid: 20, ppid: 1, startTime: 'f' },
      { pid: 30, ppid: 31, startTime: 'g' },
      { pid: 31, ppid: 30, startTime: 'h' },
    ];
    expect(descendantsOf(10, table).map((e) => e.pid)).toEqual([11, 13, 12]);
    expect(descendantsOf(30, table).map((e) => e.pid)).toEqual([31]);
    expect(descendantsOf(99, table)).toEqual([]);
  });
});

describe('killSurvivors', () => {
  it('kills a live process but not a pid whose start time no longer matches', async () => {
    const child = spawn('sleep', ['60'], { stdio: 'ignore' });
    await once(child, 'spawn');
    const entry = listProcesses().find((e) => e.pid === child.pid);
    expect(entry).toBeDefined();
    expect(killSurvivors([{ ...entry!, startTime: 'not-this-process' }])).toBe(0);
    expect(killSurvivors([entry!])).toBe(1);
    const [, signal] = await once(child, 'exit');
    expect(signal).toBe('SIGKILL');
  });
});
