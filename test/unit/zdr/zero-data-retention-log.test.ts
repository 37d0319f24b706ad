/** lib/zero-data-retention-log.ts: a ZDR activity's log lines keep no error text that could name a URL. */
import { describe, expect, it } from 'vitest';
import { isZdrActivityInput, scrubZdrMeta } from '../../../lib/zero-data-retention-log.js';
import { PageError } from '../../../lib/errors.js';

describe('isZdrActivityInput', () => {
  it('finds the flag in a scrape page\'s options and a crawl or batch page\'s scrapeOptions, and nowhere else', () => {
    expect(isZdrActivityInput({ url: 'https://a.example', options: { zeroDataRetention: true } })).toBe(true);
    expect(isZdrActivityInput({ page: { url: 'https://a.example' }, scrapeOptions: { zeroDataRetention: true } })).toBe(true);
    expect(isZdrActivityInput({ options: { zeroDataRetention: false } })).toBe(false);
    expect(isZdrActivityInput({ scrapeOptions: {} })).toBe(false);
    expect(isZdrActivityInput({ zeroDataRetention: true })).toBe(false);
    expect(isZdrActivityInput(undefined)).toBe(false);
    expect(isZdrActivityInput('x')).toBe(false);
  });
});

describe('scrubZdrMeta', () => {
  const failure = new PageError('SCRAPE_SITE_ERROR', 'Rendering https://secret.example/path failed: net::ERR_FAILED', { details: { url: 'https://secret.example/path' } });

  it('reduces every error of a ZDR line to its name and code, keeping the other fields', () => {
    const scrubbed = scrubZdrMeta({ zeroDataRetention: true, jobId: 'j1', durationMs: 12, error: failure });
    expect(scrubbed).toEqual({ zeroDataRetention: true, jobId: 'j1', durationMs: 12, error: { name: failure.name, code: 'SCRAPE_SITE_ERROR', message: '[zero data retention]' } });
    expect(JSON.stringify(scrubbed)).not.toContain('secret.example');
  });

  it('leaves other lines as they are', () => {
    const meta = { jobId: 'j2', error: failure };
    expect(scrubZdrMeta(meta)).toBe(meta);
    expect(scrubZdrMeta(undefined)).toBeUndefined();
  });
});
