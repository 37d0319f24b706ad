import { z } from 'zod';

/**
 * The absolute http(s) URL a caller means. Like Firecrawl, a missing scheme gets `http://`.
 * Returns undefined for anything that is not a fetchable web URL.
 */
export function absoluteHttpUrl(raw: string): string | undefined {
  const trimmed = raw.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(trimmed) ? trimmed : `http://${trimmed}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (!url.hostname || !HOSTNAME.test(url.hostname)) return undefined;
  return url.toString();
}

/**
 * What DNS can answer: labels of letters, digits, hyphens and underscores (the URL parser has
 * already turned an IDN into xn-- labels), or an IP literal. The URL standard lets `"` or `{`
 * through in a host, which would only ever fail at DNS time, as a 502 for a client's typo.
 */
const LABEL = '[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?';
const HOSTNAME = new RegExp(`^${LABEL}(?:\\.${LABEL})*\\.?$|^\\[[0-9a-f:.]+\\]$`, 'i');

/** Validates without rewriting: the original string is echoed back as metadata.sourceURL. */
export const targetUrlSchema = z
  .string({ error: 'Invalid URL' })
  .max(8192)
  .refine((u) => absoluteHttpUrl(u) !== undefined, { message: 'Invalid URL' })
  .describe('Absolute http(s) URL; a missing scheme means http');
