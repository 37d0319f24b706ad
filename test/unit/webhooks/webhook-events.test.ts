import { describe, expect, it } from 'vitest';
import { webhookSchema } from '../../../contracts/webhook.js';
import { WEBHOOK_RETRY_POLICY, webhookEventType, webhookWants } from '../../../lib/webhook-events.js';

describe('webhookWants', () => {
  it('wants every event by default', () => {
    const config = webhookSchema.parse('https://example.com/hook');
    for (const event of ['started', 'page', 'completed', 'failed'] as const) expect(webhookWants(config, event)).toBe(true);
  });

  it('honours events given in short or full form', () => {
    const config = webhookSchema.parse({ url: 'https://example.com/hook', events: ['crawl.page', 'completed'] });
    expect(webhookWants(config, 'page')).toBe(true);
    expect(webhookWants(config, 'completed')).toBe(true);
    expect(webhookWants(config, 'started')).toBe(false);
    expect(webhookWants(config, 'failed')).toBe(false);
  });

  it('wants nothing for an empty list', () => {
    const config = webhookSchema.parse({ url: 'https://example.com/hook', events: [] });
    expect(webhookWants(config, 'page')).toBe(false);
  });
});

describe('webhookEventType', () => {
  it('names events per job kind as Firecrawl does', () => {
    expect(webhookEventType('crawl', 'page')).toBe('crawl.page');
    expect(webhookEventType('batch_scrape', 'completed')).toBe('batch_scrape.completed');
  });
});

describe('WEBHOOK_RETRY_POLICY', () => {
  it('gives up after a few minutes of exponential backoff', () => {
    expect(WEBHOOK_RETRY_POLICY).toMatchObject({ initialInterval: '5s', backoffCoefficient: 2, maximumAttempts: 6 });
  });
});
