import { findOrInstallChromium } from './chromium.js';
import type { LogSink } from './managed-process.js';
import { findOrBuildTemporalCli } from './temporal-cli.js';

export interface Prerequisites {
  chromiumPath: string;
  /** Absent when the caller uses an external Temporal server and did not ask for the CLI. */
  temporalCliPath?: string;
}

export interface EnsurePrerequisitesOptions {
  /** Whether the Temporal CLI is needed (it is not when TEMPORAL_ADDRESS names a running server). */
  temporalCli: boolean;
  log?: LogSink;
}

/** Chromium and the Temporal CLI, found where they already are, or installed/built once. */
export async function ensurePrerequisites(options: EnsurePrerequisitesOptions): Promise<Prerequisites> {
  const log = options.log ?? console.log;
  const chromiumPath = await findOrInstallChromium({ log });
  log(`[setup] chromium: ${chromiumPath}`);
  if (!options.temporalCli) return { chromiumPath };
  const temporalCliPath = await findOrBuildTemporalCli({ log });
  log(`[setup] temporal CLI: ${temporalCliPath}`);
  return { chromiumPath, temporalCliPath };
}
