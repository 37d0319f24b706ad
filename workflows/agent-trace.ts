/**
 * One agent's part of its run's trace (the SDK's trace event schema). The workflow numbers the
 * events and stamps them with its own clock, so a replayed or retried write stores each once,
 * and the trace can merge a run's agents in time order.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { TrawlActivities } from '../activities/index.js';
import type { AgentKey, TraceEvent } from '../db/repositories/agent-runs.js';
import { BOOKKEEPING_RETRY_POLICY } from './activities.js';

export type TraceErrorCode = 'cancelled' | 'credit_limit_reached' | 'parent_finished' | 'refused' | 'internal';

export interface TraceError {
  code: TraceErrorCode;
  retryable: boolean;
  message: string;
}

export interface TraceAgent {
  id: string;
  role: 'orchestrator' | 'subagent';
  name: 'spark-2';
  parentId?: string;
}

const { recordAgentEvents } = proxyActivities<TrawlActivities>({ startToCloseTimeout: '30s', retry: BOOKKEEPING_RETRY_POLICY });

export class AgentTrace {
  private seq = 0;
  private readonly pending: TraceEvent[] = [];

  constructor(
    private readonly runId: string,
    private readonly agentKey: AgentKey,
    readonly agent: TraceAgent,
  ) {}

  get count(): number {
    return this.seq;
  }

  emit(type: string, payload: Record<string, unknown> = {}): void {
    const n = this.seq++;
    const eventId = `${this.runId}:${this.agentKey || 'main'}:${n}`;
    this.pending.push({
      seq: n,
      type,
      occurredAt: Date.now(),
      payload: { schemaVersion: 1, eventId, runId: this.runId, producerSequence: n, agent: this.agent, type, ...payload },
    });
  }

  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const events = this.pending.splice(0);
    await recordAgentEvents({ runId: this.runId, agentKey: this.agentKey, events });
  }
}
