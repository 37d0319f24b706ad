import { uuid4 } from '@temporalio/workflow';
import type { WebhookConfig, WebhookEventKind } from '../contracts/webhook.js';
import { webhookWants, type WebhookJobKind } from '../lib/webhook-events.js';
import { webhookActivities } from './activities.js';

/**
 * A job's webhook events, each delivered by its own activity without holding up the job. A
 * delivery that fails for good is given up: a broken receiver never fails or slows the job.
 */
export class WebhookFanout {
  private readonly deliveries = new Set<Promise<void>>();

  constructor(private readonly job: { jobId: string; teamId: string; kind: WebhookJobKind; webhook?: WebhookConfig }) {}

  notify(event: WebhookEventKind, extra: { documentId?: string; error?: string; data?: Record<string, unknown>[]; success?: boolean } = {}): void {
    const { webhook } = this.job;
    if (!webhook || !webhookWants(webhook, event)) return;
    const delivery = webhookActivities
      .deliverWebhook({
        jobId: this.job.jobId,
        teamId: this.job.teamId,
        jobKind: this.job.kind,
        event,
        webhook,
        deliveryId: uuid4(),
        ...extra,
      })
      .then(
        () => undefined,
        () => undefined,
      );
    this.deliveries.add(delivery);
    void delivery.finally(() => this.deliveries.delete(delivery));
  }

  /** Resolves once every event sent so far was delivered or given up; terminal events wait on it. */
  async drain(): Promise<void> {
    while (this.deliveries.size > 0) await Promise.all([...this.deliveries]);
  }
}
