import { z } from 'zod';

/** 1–128 characters, no control characters (Postgres text holds no NUL). */
export const profileNameSchema = z
  .string()
  .min(1)
  .max(128)
  .refine((name) => ![...name].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f), 'Profile name must not contain control characters');

/**
 * `profile: {name, saveChanges}` on a scrape, an interact session or a browser session: the
 * team's cookies and localStorage under that name, loaded into a fresh context and saved back
 * when `saveChanges` (Firecrawl's default: true).
 */
export const browserProfileSchema = z
  .strictObject({
    name: profileNameSchema.describe("The profile's name, unique per team"),
    saveChanges: z.boolean().default(true).describe('Save the cookies and localStorage back when the scrape or session ends'),
  })
  .describe('A persistent browser profile (cookies and localStorage), sealed at rest');
export type BrowserProfile = z.infer<typeof browserProfileSchema>;
