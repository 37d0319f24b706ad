/**
 * A team's whole threat-protection policy as `PUT /v2/team/threat-protection` and
 * `npm run admin -- threat-protection set` take it: the seed's ThreatProtectionOverride fields
 * plus `enabled`, `allowRequestOverrides` and `enforced`. It replaces the stored policy; omitted
 * fields take the defaults of lib/threat/policy.ts.
 */
import { z } from 'zod';
import { DEFAULT_THREAT_POLICY } from '../lib/threat/policy.js';
import { threatProtectionSchema } from './scrape-options.js';

const d = DEFAULT_THREAT_POLICY;

export const threatPolicySchema = threatProtectionSchema.extend({
  enabled: z.boolean().describe('The enterprise feature flag'),
  mode: z.enum(['off', 'normal']).default(d.mode),
  riskScoreThreshold: z.number().int().min(0).max(100).default(d.riskScoreThreshold),
  blacklist: threatProtectionSchema.shape.blacklist.unwrap().default([]),
  whitelist: threatProtectionSchema.shape.whitelist.unwrap().default([]),
  blockedTlds: threatProtectionSchema.shape.blockedTlds.unwrap().default([]),
  failurePolicy: z.enum(['open', 'closed']).default(d.failurePolicy),
  allowRequestOverrides: z.boolean().default(d.allowRequestOverrides),
  enforced: z.boolean().default(d.enforced),
});
