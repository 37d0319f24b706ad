import { z } from 'zod';
import { auditMetadataSchema } from '../../contracts/cloud-only.js';
import { requestMetaShape, threatProtectionSchema } from '../../contracts/scrape-options.js';
import { agentWebhookSchema } from '../../contracts/webhook.js';

/** Every generation runs as spark-2; anything else is a 400. */
export const AGENT_MODELS = ['spark-1-pro', 'spark-1-mini', 'spark-2'] as const;

/** Steps a run may take, by `effort`. */
export const STEPS_BY_EFFORT = { low: 6, medium: 12, high: 24 } as const;

/** POST /v2/agent */
export const agentRequestSchema = z
  .strictObject({
  prompt: z.string().trim().min(1).max(10_000).describe('What the agent should find out'),
  urls: z.array(z.url({ protocol: /^https?$/ }).max(8192)).max(100).optional().describe('Where to start'),
  schema: z.record(z.string(), z.unknown()).optional().describe('JSON Schema of the result'),
  maxCredits: z.number().int().min(1).max(1_000_000).optional().describe('Credit cap; a run that reaches it fails unbilled'),
  strictConstrainToURLs: z.boolean().default(false).describe('Visit only `urls` and pages below them'),
  model: z.enum(AGENT_MODELS).default('spark-2'),
  effort: z.enum(['low', 'medium', 'high']).default('medium').describe('Bounds the number of steps'),
  webhook: agentWebhookSchema.optional(),
  threatProtection: threatProtectionSchema.optional().describe('Threat protection for every page the run maps or scrapes'),
  mode: z.enum(['extract', 'chat']).default('extract').describe('extract answers in `data` (by `schema`); chat answers a text `message`'),
  threadId: z.uuid().optional().describe("A thread of the team's to continue: this run sees its earlier turns' answers"),
  auditMetadata: auditMetadataSchema,
  ...requestMetaShape,
})
  .refine((b) => !(b.mode === 'chat' && b.schema), { path: ['schema'], message: 'a chat run answers in text: schema cannot be combined with mode "chat"' });
export type AgentRequest = z.infer<typeof agentRequestSchema>;
