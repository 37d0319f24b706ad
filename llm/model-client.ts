/**
 * The one way Trawl talks to a language model: any OpenAI-compatible server, or Ollama through its
 * OpenAI-compatible API, via the Vercel AI SDK (v6, the line that runs on Node 20). Built once per
 * worker (worker/main.ts) and handed to activities through ActivityDeps; never used in workflow or
 * API code.
 *
 * - Retries: the SDK retries 429, 408 and 5xx with exponential backoff, honouring Retry-After;
 *   other 4xx answers are not retried. What still fails becomes a TrawlError with an LLM_* code.
 * - Structured output, per request, down a ladder: `json_schema` response format, then a forced
 *   tool call (some servers, Ollama's OpenAI layer among them, ignore one or the other), then the
 *   schema in the prompt. Every answer is validated with ajv; one repair call gets the errors;
 *   then LLM_OUTPUT_INVALID, never a silent `{}`.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import {
  APICallError,
  generateText,
  jsonSchema,
  NoObjectGeneratedError,
  Output,
  RetryError,
  tool,
  ToolChoiceViolationError,
  type LanguageModel,
} from 'ai';
import { jsonrepair } from 'jsonrepair';
import type { ModelConfig } from '../lib/config.js';
import { NonRetryablePageError, PageError, TrawlError } from '../lib/errors.js';
import { validatorFor, type JsonSchema } from './json-schema.js';

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface ModelCall {
  system?: string;
  prompt: string;
  signal?: AbortSignal;
  maxOutputTokens?: number;
}

export interface ModelClient {
  readonly model: string;
  generateText(call: ModelCall): Promise<{ text: string; usage: TokenUsage }>;
  generateJson<T = unknown>(call: ModelCall & { schema: JsonSchema }): Promise<{ object: T; usage: TokenUsage }>;
  /** Whether the server answers at all (GET /models); for /health. */
  ping(signal?: AbortSignal): Promise<void>;
}

/** Retries of one call after its first attempt, for 429, 408 and 5xx answers (backoff 2, 4, 8 s). */
const MAX_RETRIES = 3;

export interface ModelClientOptions {
  /** @default MAX_RETRIES */
  maxRetries?: number;
}

type Strategy = 'json_schema' | 'tool' | 'prompt';
const LADDER: readonly Strategy[] = ['json_schema', 'tool', 'prompt'];

export function createModelClient(config: ModelConfig, options: ModelClientOptions = {}): ModelClient {
  const maxRetries = options.maxRetries ?? MAX_RETRIES;
  const provider = createOpenAICompatible({
    name: config.provider,
    baseURL: config.baseUrl,
    apiKey: config.apiKey,
    supportsStructuredOutputs: true,
    includeUsage: true,
  });
  const model: LanguageModel = provider.chatModel(config.model);
  // The first strategy this server handled; later calls start there.
  let ladderStart = 0;

  async function run(call: ModelCall, extra: Partial<Parameters<typeof generateText>[0]> = {}) {
    try {
      return await generateText({
        model,
        system: call.system,
        prompt: call.prompt,
        abortSignal: call.signal,
        maxOutputTokens: call.maxOutputTokens,
        maxRetries,
        temperature: 0,
        ...extra,
      } as Parameters<typeof generateText>[0]);
    } catch (err) {
      throw toModelError(err, maxRetries, call.signal);
    }
  }

  async function attempt(strategy: Strategy, call: ModelCall & { schema: JsonSchema }): Promise<{ raw: unknown; usage: TokenUsage }> {
    if (strategy === 'json_schema') {
      const result = await run(call, { output: Output.object({ schema: jsonSchema(call.schema) }) });
      return { raw: parseLoose(result.text), usage: usageOf(result.usage) };
    }
    if (strategy === 'tool') {
      const result = await run(call, {
        tools: { respond: tool({ description: 'Give the answer', inputSchema: jsonSchema(call.schema) }) },
        toolChoice: { type: 'tool', toolName: 'respond' },
      });
      const toolCall = result.toolCalls[0];
      if (!toolCall) throw new StrategyUnsupported('the model did not call the tool');
      return { raw: toolCall.input, usage: usageOf(result.usage) };
    }
    const result = await run({
      ...call,
      system: `${call.system ?? ''}\n\nAnswer with only a JSON value that conforms to this JSON Schema, and nothing else:\n${JSON.stringify(call.schema)}`.trim(),
    });
    if (result.finishReason === 'length') throw new TrawlError('LLM_OUTPUT_INVALID', 'The model ran out of output tokens before finishing its answer');
    return { raw: parseLoose(result.text), usage: usageOf(result.usage) };
  }

  return {
    model: config.model,

    async generateText(call) {
      const result = await run(call);
      return { text: result.text, usage: usageOf(result.usage) };
    },

    async generateJson<T>(call: ModelCall & { schema: JsonSchema }) {
      const validate = validatorFor(call.schema);
      let usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
      for (let i = ladderStart; i < LADDER.length; i++) {
        const strategy = LADDER[i]!;
        let answer: { raw: unknown; usage: TokenUsage };
        try {
          answer = await attempt(strategy, call);
        } catch (err) {
          // A server that refuses this way of asking (400 on response_format or tools, no tool
          // call) gets the next way; anything else is the call's failure.
          if (i < LADDER.length - 1 && (err instanceof StrategyUnsupported || isRejected(err))) {
            ladderStart = Math.max(ladderStart, i + 1);
            continue;
          }
          throw err;
        }
        usage = add(usage, answer.usage);
        if (validate(answer.raw)) return { object: answer.raw as T, usage };
        // One repair: the answer and what was wrong with it.
        const repaired = await attempt('prompt', {
          ...call,
          prompt: `${call.prompt}\n\nYour previous answer was:\n${JSON.stringify(answer.raw)}\nIt does not match the schema: ${validate.errorsText()}. Answer again, correctly.`,
        });
        usage = add(usage, repaired.usage);
        if (validate(repaired.raw)) return { object: repaired.raw as T, usage };
        throw new NonRetryablePageError('LLM_OUTPUT_INVALID', `The model's answer does not match the schema: ${validate.errorsText()}`, {
          details: { usage },
        });
      }
      throw new NonRetryablePageError('LLM_REQUEST_REJECTED', 'The model server accepts no way of asking for structured output');
    },

    async ping(signal) {
      const response = await fetch(`${config.baseUrl}/models`, {
        headers: config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {},
        signal: signal ?? AbortSignal.timeout(3_000),
      });
      await response.body?.cancel();
      if (response.status >= 500) throw new Error(`the model server answered ${response.status}`);
    },
  };
}

class StrategyUnsupported extends Error {}

function usageOf(usage: { inputTokens?: number; outputTokens?: number } | undefined): TokenUsage {
  return { inputTokens: usage?.inputTokens ?? 0, outputTokens: usage?.outputTokens ?? 0 };
}

function add(a: TokenUsage, b: TokenUsage): TokenUsage {
  return { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens };
}

/** Models wrap JSON in fences, add a sentence, or leave a trailing comma: take what is meant. */
function parseLoose(text: string): unknown {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text)?.[1] ?? text;
  try {
    return JSON.parse(fenced);
  } catch {
    try {
      return JSON.parse(jsonrepair(fenced));
    } catch {
      return fenced;
    }
  }
}

function isRejected(err: unknown): boolean {
  return err instanceof TrawlError && err.code === 'LLM_REQUEST_REJECTED';
}

/** The SDK's errors as Trawl's: which are worth another activity attempt, and which are not. */
function toModelError(err: unknown, maxRetries: number, signal?: AbortSignal): Error {
  if (signal?.aborted) return err instanceof Error ? err : new Error(String(err));
  // No structured answer, or no call of the forced tool: this way of asking does not work here.
  if (NoObjectGeneratedError.isInstance(err) || ToolChoiceViolationError.isInstance(err)) return new StrategyUnsupported(err.message);
  const last = RetryError.isInstance(err) ? err.lastError : err;
  if (APICallError.isInstance(last)) {
    const status = last.statusCode ?? 0;
    const details = { status, url: last.url };
    if (status === 429) return new PageError('LLM_RATE_LIMITED', `The model server is rate limiting (429) after ${maxRetries + 1} tries`, { details, cause: err });
    if (status >= 500 || status === 408 || status === 0) {
      return new PageError('LLM_UNAVAILABLE', `The model server failed (${status || 'no answer'}): ${last.message}`, { details, cause: err });
    }
    if (status === 401 || status === 403) {
      return new NonRetryablePageError('LLM_AUTH_FAILED', `The model server rejected the API key (${status}); check OPENAI_API_KEY: ${last.message}`, { details, cause: err });
    }
    return new NonRetryablePageError('LLM_REQUEST_REJECTED', `The model server refused the request (${status}): ${last.message}`, { details, cause: err });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new PageError('LLM_UNAVAILABLE', `The model server could not be reached: ${message}`, { cause: err });
}
