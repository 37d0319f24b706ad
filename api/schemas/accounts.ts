/**
 * What the admin CLI's flags and the dashboard's forms change, in one schema each: both hand
 * over strings (`--credits 500`, a form field), so both parse through here. An empty string
 * means "leave as it is", as an omitted flag does.
 */
import { z } from 'zod';
import { ENDPOINT_CLASSES, MAX_PLAN_CONCURRENCY } from '../../lib/plans.js';
import { SCOPES } from '../auth/api-keys.js';

const blankIsAbsent = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

const count = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z.preprocess(
    blankIsAbsent,
    z
      .string()
      .trim()
      .regex(/^\d+$/, `must be a whole number from ${min} to ${max}`)
      .transform(Number)
      .refine((n) => n >= min && n <= max, `must be a whole number from ${min} to ${max}`)
      .optional(),
  );

const flag = z.preprocess(blankIsAbsent, z.enum(['true', 'false'], { error: 'must be true or false' }).transform((v) => v === 'true').optional());

/** A plan change, named as the CLI's flags are (`credits`, `scrape-rpm`, `zdr`, ...). */
export const planChangeSchema = z.object({
  credits: count(0).describe('Credits per calendar month'),
  tokens: count(0).describe('Model tokens per calendar month'),
  concurrency: count(1, MAX_PLAN_CONCURRENCY).describe('Pages fetched at once'),
  monitors: count(0, 100_000).describe('Monitors the team may keep'),
  'agent-concurrency': count(0, 1_000).describe('Agent runs at once'),
  'failed-agent-pages': count(0).describe("Pages failed agent runs may fetch unbilled per month"),
  ...(Object.fromEntries(ENDPOINT_CLASSES.map((c) => [`${c}-rpm`, count(0)])) as Record<`${(typeof ENDPOINT_CLASSES)[number]}-rpm`, ReturnType<typeof count>>),
  zdr: flag,
  'threat-protection': flag,
  /** An empty string clears the secret; absent leaves it. */
  'webhook-secret': z.string().max(500).optional(),
});
export type PlanChange = z.infer<typeof planChangeSchema>;

/** `scrape,crawl` → ['scrape', 'crawl']; absent or blank → null (the default scopes: every one but admin). */
export const scopesSchema = z.preprocess(
  blankIsAbsent,
  z
    .union([z.string(), z.array(z.string())])
    .transform((v) => (Array.isArray(v) ? v : v.split(',')).map((s) => s.trim()).filter(Boolean))
    .superRefine((scopes, ctx) => {
      const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
      if (unknown.length) ctx.addIssue({ code: 'custom', message: `unknown scope(s): ${unknown.join(', ')}; known: ${SCOPES.join(', ')}` });
    })
    .transform((scopes) => (scopes.length ? scopes : null))
    .optional(),
).transform((v) => v ?? null);

export const teamNameSchema = z
  .string()
  .trim()
  .min(1, 'a team needs a name')
  .max(100, 'a team name has at most 100 characters')
  .regex(/^[^\s\p{C}]+$/u, 'a team name has no spaces or control characters');

/** The first message of a failed parse, prefixed with the field: what both the CLI and a form show. */
export function firstIssue(error: z.ZodError, prefix = ''): string {
  const issue = error.issues[0]!;
  const field = issue.path.join('.');
  return field ? `${prefix}${field} ${issue.message}` : issue.message;
}
