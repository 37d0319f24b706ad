/**
 * A second API + worker pair configured with OPENAI_BASE_URL pointing at the fake model server,
 * on its own task queue, for the e2e files about model features. The shared stack has no model
 * and answers LLM_NOT_CONFIGURED.
 */
import Firecrawl from '@mendable/firecrawl-js';
import { findFreePort } from '../../lib/ports.js';
import { startStack, type Stack } from '../../scripts/stack.js';
import { apiClient } from '../helpers/api-client.js';
import { startFakeModelServer, type FakeModelServer } from '../helpers/fake-model-server.js';
import { startPageServer } from '../helpers/page-server.js';
import { createKeyWithCli } from '../helpers/run-admin.js';
import { e2eContext } from './context.js';

export interface ModelStack {
  model: FakeModelServer;
  stack: Stack;
  stop(): Promise<void>;
}

export async function startModelStack(taskQueue: string, env: Record<string, string> = {}): Promise<ModelStack> {
  const { databaseUrl, temporalAddress } = e2eContext();
  const model = await startFakeModelServer();
  const stack = await startStack({
    databaseUrl,
    temporal: { address: temporalAddress },
    apiPort: await findFreePort(),
    env: {
      LOG_LEVEL: 'warn',
      TEMPORAL_TASK_QUEUE: taskQueue,
      ALLOW_PRIVATE_NETWORK: 'true',
      OPENAI_BASE_URL: model.baseUrl,
      OPENAI_API_KEY: 'sk-fake',
      MODEL_NAME: 'fake-model',
      ...env,
    },
    log: () => undefined,
  });
  return {
    model,
    stack,
    async stop() {
      await stack.stop();
      await model.close();
    },
  };
}

/** A model stack, a team on it with the API and the official SDK as clients, and a page server. */
export interface ModelTeam extends ModelStack {
  apiUrl: string;
  origin: string;
  api: ReturnType<typeof apiClient>;
  firecrawl: Firecrawl;
}

export async function startModelTeam(taskQueue: string, team: string, pages: Record<string, string>, title?: string, env: Record<string, string> = {}): Promise<ModelTeam> {
  const [site, stack] = await Promise.all([startPageServer(pages, title), startModelStack(taskQueue, env)]);
  const key = await createKeyWithCli(e2eContext().databaseUrl, team);
  const apiUrl = stack.stack.apiUrl;
  return {
    ...stack,
    apiUrl,
    origin: site.origin,
    api: apiClient(apiUrl, key),
    firecrawl: new Firecrawl({ apiKey: key, apiUrl }),
    async stop() {
      await Promise.all([stack.stop(), site.close()]);
    },
  };
}

/** A scripted agent decision for the fake model: the action as its JSON answer, after `delayMs`. */
export const say = (action: Record<string, unknown>, delayMs?: number) => ({ content: JSON.stringify(action), ...(delayMs && { delayMs }) });

/** Polls an agent run until it leaves `processing`; its status body. */
export async function finishedAgentRun(api: ModelTeam['api'], id: string) {
  // A deadline, not a count of polls: each poll takes longer on a loaded machine.
  for (const giveUpAt = Date.now() + 60_000; Date.now() < giveUpAt; ) {
    const res = await api(`/v2/agent/${id}`);
    if (res.body.status !== 'processing') return res.body;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`agent ${id} still running`);
}
