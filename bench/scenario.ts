/** What a bench scenario is and reports; bench/run.ts runs them and records the rows. */

export interface BenchSettings {
  /** Timed runs per figure (BENCH_RUNS). @default 3 */
  runs: number;
  /** Overrides each scenario's page count (BENCH_PAGES). */
  pages?: number;
  /** Overrides each latency scenario's sequential calls per run (BENCH_CALLS). */
  calls?: number;
  /** Run the stack's processes under `node --cpu-prof` and report where the time went (BENCH_PROFILE=1). */
  profile: boolean;
  log: (line: string) => void;
}

export type Verdict = 'met' | 'missed' | 'reported';

export interface ResultRow {
  metric: string;
  unit: string;
  /** One value per run. */
  values: number[];
  /** e.g. `≥ 1.0`; its verdict is computed on the median. */
  target?: { text: string; ok: (median: number) => boolean };
}

export interface ScenarioResult {
  rows: ResultRow[];
  /** Conditions of the run and findings, printed under the table. */
  notes: string[];
}

export interface Scenario {
  name: string;
  /** One paragraph for RESULTS.md: what is measured and how both sides do equal work. */
  description: string;
  run(settings: BenchSettings): Promise<ScenarioResult>;
}
