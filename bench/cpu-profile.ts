/**
 * Where a process spent its CPU, from the `.cpuprofile` files `node --cpu-prof` writes at exit:
 * self time by function and by area (a package in node_modules, or a folder of this project).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { projectRoot } from '../scripts/paths.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  /** Sampled CPU time (idle excluded), ms. */
  busyMs: number;
  byArea: { area: string; ms: number }[];
  byFunction: { name: string; ms: number }[];
}

/** Profiles of process `pid` in `dir`: its main thread and its worker threads. */
export function profilesOf(dir: string, pid: number): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile') && f.split('.')[3] === String(pid))
    .map((f) => join(dir, f));
}

function areaOf(url: string): string {
  if (!url) return '(native, GC and program)';
  if (url.startsWith('node:')) return 'node internals';
  const path = url.replace(/^file:\/\//, '');
  const modules = path.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const parts = path.slice(modules + '/node_modules/'.length).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  if (path.startsWith(projectRoot)) return relative(projectRoot, path).split('/').slice(0, -1).join('/') || '.';
  return path;
}

export function summarizeProfiles(files: readonly string[], top = 15): ProfileSummary {
  const byArea = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let busyUs = 0;
  for (const file of files) {
    const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
    const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
    profile.samples.forEach((id, i) => {
      const frame = nodes.get(id)?.callFrame;
      const us = profile.timeDeltas[i] ?? 0;
      if (!frame || frame.functionName === '(idle)') return;
      busyUs += us;
      const area = areaOf(frame.url);
      byArea.set(area, (byArea.get(area) ?? 0) + us);
      const where = frame.url ? `${areaOf(frame.url)}:${frame.lineNumber + 1}` : '';
      const name = `${frame.functionName || '(anonymous)'}${where ? ` ${where}` : ''}`;
      byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    });
  }
  const ranked = (map: Map<string, number>) =>
    [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, top).map(([key, us]) => [key, us / 1000] as const);
  return {
    busyMs: busyUs / 1000,
    byArea: ranked(byArea).map(([area, ms]) => ({ area, ms })),
    byFunction: ranked(byFunction).map(([name, ms]) => ({ name, ms })),
  };
}

export function describeProfile(label: string, summary: ProfileSummary, pages: number): string[] {
  const pct = (ms: number) => `${((100 * ms) / summary.busyMs).toFixed(1)} %`;
  return [
    `${label}: ${summary.busyMs.toFixed(0)} ms CPU sampled, ${(summary.busyMs / pages).toFixed(2)} ms/page`,
    `  by area: ${summary.byArea.slice(0, 10).map((a) => `${a.area} ${pct(a.ms)}`).join('; ')}`,
    `  top functions (self): ${summary.byFunction.slice(0, 10).map((f) => `${f.name} ${pct(f.ms)}`).join('; ')}`,
  ];
}
