/**
 * Every model call a worker makes for a team is admitted first (activities/page/enrich/model.ts):
 * not for a job that has ended, and not past the team's monthly token quota, whether or not the
 * run it belongs to will ever be billed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityDeps } from '../../../activities/deps.js';
import { modelFor } from '../../../activities/page/enrich/model.js';
import { saveTeamPlan } from '../../../db/repositories/plans.js';
import { DEFAULT_PLAN, planColumns } from '../../../lib/plans.js';
import type { ModelClient } from '../../../llm/model-client.js';
import { createTestDb, newJob, newTeam, type TestDb } from './fixture.js';

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb('trawl_model_admission');
});
afterAll(async () => {
  await t.drop();
});

/** A model that counts what reaches it and spends 5 tokens per call. */
function countingModel() {
  const calls: string[] = [];
  const client: ModelClient = {
    model: 'counting',
    generateText: async (call) => {
      calls.push(call.prompt);
      return { text: 'ok', usage: { inputTokens: 3, outputTokens: 2 } };
    },
    generateJson: async () => {
      throw new Error('not used');
    },
    ping: async () => undefined,
  };
  return { client, calls };
}

const depsWith = (llm: ModelClient) => ({ db: t.db, llm }) as unknown as ActivityDeps;

describe('model calls', () => {
  it('are refused for a job that has ended, and never reach the model', async () => {
    const { client, calls } = countingModel();
    const team = await newTeam(t.db);
    const jobId = await newJob(t.db, team);
    const model = modelFor(depsWith(client), { teamId: team.teamId, jobId }, 'json');
    await model.generateText({ prompt: 'while running' });
    await t.db.updateTable('jobs').set({ status: 'cancelled' }).where('id', '=', jobId).execute();
    await expect(model.generateText({ prompt: 'after the end' })).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(calls).toEqual(['while running']);
  });

  it("are refused with 402's code once the team's monthly tokens are spent", async () => {
    const { client, calls } = countingModel();
    const team = await newTeam(t.db);
    await saveTeamPlan(t.db, { team_id: team.teamId, ...planColumns({ ...DEFAULT_PLAN, monthlyTokens: 8 }) });
    const model = modelFor(depsWith(client), { teamId: team.teamId, jobId: null }, 'agent');
    await model.generateText({ prompt: 'first' });
    await model.generateText({ prompt: 'second' });
    await expect(model.generateText({ prompt: 'third' })).rejects.toMatchObject({ code: 'INSUFFICIENT_CREDITS', message: expect.stringContaining('(10 of 8)') });
    expect(calls).toEqual(['first', 'second']);
  });
});
