/** User-supplied headers are HTTP tokens and clean values, or a 400; found by the route fuzz as a 502 from Chromium. */
import { describe, expect, it } from 'vitest';
import { mapRequestSchema } from '../../../api/schemas/map.js';
import { scrapeRequestSchema } from '../../../api/schemas/scrape.js';
import { webhookSchema } from '../../../contracts/webhook.js';

const url = 'https://example.com/';

describe('headers option', () => {
  it.each([
    ['an empty name', { '': 'x' }],
    ['a name with a space', { 'x a': 'x' }],
    ['a name with a colon', { 'x:a': 'x' }],
    ['a value with a line break', { 'x-a': 'b\r\nInjected: 1' }],
  ])('refuses %s in scrape, map and webhook headers', (_what, headers) => {
    expect(scrapeRequestSchema.safeParse({ url, headers }).success).toBe(false);
    expect(mapRequestSchema.safeParse({ url, headers }).success).toBe(false);
    expect(webhookSchema.safeParse({ url, headers }).success).toBe(false);
  });

  it('accepts ordinary headers', () => {
    const headers = { 'X-Custom': 'yes', Authorization: 'Bearer abc', "x-odd!#$%&'*+.^_`|~": 'v; q=1' };
    expect(scrapeRequestSchema.parse({ url, headers }).headers).toEqual(headers);
    expect(mapRequestSchema.parse({ url, headers }).headers).toEqual(headers);
  });
});
