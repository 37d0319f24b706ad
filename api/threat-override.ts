/**
 * A request's `threatProtection` override, checked against the team's policy before anything
 * starts: the seed's three 403s (no feature, overrides disabled, `off` on an enforced team).
 */
import type { ThreatProtectionOverride } from '../contracts/scrape-options.js';
import type { Db } from '../db/connect.js';
import { readThreatPolicy } from '../db/repositories/threat-policy.js';
import { applyOverride } from '../lib/threat/policy.js';
import { httpError } from './errors.js';

const REFUSALS = {
  'not-enabled': 'Forbidden: threat protection is not enabled for this team',
  'overrides-disabled': 'Forbidden: this team does not allow per-request threat protection overrides',
  enforced: 'Forbidden: threat protection is enforced for this team; mode "off" is not allowed',
} as const;

export async function assertThreatOverrideAllowed(db: Db, teamId: string, override: ThreatProtectionOverride | undefined): Promise<void> {
  if (!override) return;
  const applied = applyOverride(await readThreatPolicy(db, teamId), override);
  if (typeof applied === 'string') throw httpError('FORBIDDEN', REFUSALS[applied], { option: 'threatProtection', reason: applied });
}
