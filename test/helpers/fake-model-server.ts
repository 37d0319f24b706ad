/**
 * A small OpenAI-compatible chat-completions server on 127.0.0.1, so tests run the real model
 * client over HTTP. By default it behaves like an obliging model: with a `json_schema` response
 * format or a forced tool it answers an object that fits the schema, built from the last user
 * message; otherwise plain text. Tests script anything else (errors, 429 with Retry-After,
 * slowness, fenced or invalid JSON, ignored tool choice) with `script()`, and read what was asked
 * in `requests`. Concurrent callers (an agent and its sub-agents) each get their own script with
 * `scriptFor()`, chosen by what the request says.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatRequest {
  model: string;
  messages: Array<{ role: string; content: string | null }>;
  response_format?: { type: string; json_schema?: { name?: string; schema: JsonSchema; strict?: boolean } };
  tools?: Array<{ type: 'function'; function: { name: string; parameters: JsonSchema } }>;
  tool_choice?: unknown;
  temperature?: number;
  max_tokens?: number;
}

type JsonSchema = Record<string, unknown>;

/** What the fake answers one request with. */
export type FakeReply =
  | { content: string; finishReason?: 'stop' | 'length'; delayMs?: number }
  | { toolCall: { name: string; arguments: unknown }; delayMs?: number }
  | { status: number; message?: string; retryAfterSecs?: number; delayMs?: number };

export interface FakeModelServer {
  /** OpenAI-style base URL, ending in /v1. */
  baseUrl: string;
  requests: ChatRequest[];
  /** Prompt plus completion tokens of every answer given since the last reset. */
  tokensServed(): number;
  /** Replies for the next requests, in order; the default behaviour resumes after them. */
  script(...replies: FakeReply[]): void;
  /**
   * Replies, in order, for the requests whose last message contains `match`; they take
   * precedence over `script()`. Used up, such requests fall through to `script()`.
   */
  scriptFor(match: string, ...replies: FakeReply[]): void;
  reset(): void;
  close(): Promise<void>;
}

export async function startFakeModelServer(): Promise<FakeModelServer> {
  const requests: ChatRequest[] = [];
  let tokens = 0;
  let scripted: FakeReply[] = [];
  let matched: Array<{ match: string; replies: FakeReply[] }> = [];
  const server: Server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => send(res, 500, { error: { message: String(err), type: 'server_error' } }));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method === 'GET' && req.url === '/v1/models') {
      send(res, 200, { object: 'list', data: [{ id: 'fake-model', object: 'model', owned_by: 'test' }] });
      return;
    }
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      send(res, 404, { error: { message: `no route ${req.method} ${req.url}`, type: 'invalid_request_error' } });
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest;
    requests.push(body);
    const last = body.messages.at(-1)?.content ?? '';
    const reply = matched.find((m) => m.replies.length > 0 && last.includes(m.match))?.replies.shift() ?? scripted.shift() ?? defaultReply(body);
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    if ('status' in reply) {
      const headers: Record<string, string> = reply.retryAfterSecs !== undefined ? { 'retry-after': String(reply.retryAfterSecs) } : {};
      send(res, reply.status, { error: { message: reply.message ?? `fake error ${reply.status}`, type: 'fake_error', code: null } }, headers);
      return;
    }
    const message =
      'toolCall' in reply
        ? {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: reply.toolCall.name, arguments: JSON.stringify(reply.toolCall.arguments) } }],
          }
        : { role: 'assistant', content: reply.content };
    const promptTokens = Math.ceil(JSON.stringify(body.messages).length / 4);
    const completionTokens = Math.ceil(JSON.stringify(message).length / 4);
    tokens += promptTokens + completionTokens;
    send(res, 200, {
      id: `chatcmpl-${requests.length}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [{ index: 0, message, finish_reason: 'toolCall' in reply ? 'tool_calls' : (reply.finishReason ?? 'stop') }],
      usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
    });
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    tokensServed: () => tokens,
    script: (...replies) => {
      scripted.push(...replies);
    },
    scriptFor: (match, ...replies) => {
      matched.push({ match, replies });
    },
    reset: () => {
      requests.length = 0;
      tokens = 0;
      scripted = [];
      matched = [];
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

/** An obliging model: a schema-shaped object when one is asked for, else a short text. */
function defaultReply(body: ChatRequest): FakeReply {
  const text = lastUserText(body);
  const forcedTool = body.tools?.[0];
  if (forcedTool) return { toolCall: { name: forcedTool.function.name, arguments: sample(forcedTool.function.parameters, text) } };
  if (body.response_format?.type === 'json_schema' && body.response_format.json_schema) {
    return { content: JSON.stringify(sample(body.response_format.json_schema.schema, text)) };
  }
  return { content: `Summary: ${text.replace(/\s+/g, ' ').slice(0, 160).trim()}` };
}

function lastUserText(body: ChatRequest): string {
  return [...body.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
}

/**
 * A value of `schema`'s shape. A property whose name labels a value in the text ("price: 12",
 * "Author - Ada") gets that value, so answers follow the page; an optional one with no label is
 * left out; other strings are the first heading or words of the text, numbers 42.
 */
function sample(schema: JsonSchema, text: string, key?: string): unknown {
  const type = Array.isArray(schema.type) ? (schema.type.find((t) => t !== 'null') as string) : (schema.type as string | undefined);
  if (schema.enum && Array.isArray(schema.enum)) return schema.enum[0];
  if (type === 'object' || schema.properties) {
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
    // Like a careful model, an optional field the text does not state is left out.
    const answered = Object.entries(properties).filter(([name, sub]) => required.has(name) || labelledValues(text, name).length > 0 || sub.properties);
    return Object.fromEntries(answered.map(([name, sub]) => [name, sample(sub, text, name)]));
  }
  const labelled = key === undefined ? [] : labelledValues(text, key);
  if (type === 'array') {
    const items = (schema.items ?? {}) as JsonSchema;
    return labelled.length > 0 && !items.properties ? labelled.map((v) => coerce(items, v)) : [sample(items, text)];
  }
  if (labelled.length > 0) return coerce(schema, labelled[0]!);
  if (type === 'number' || type === 'integer') return 42;
  if (type === 'boolean') return false;
  const heading = /^#+\s+(.+)$/m.exec(text)?.[1];
  return (heading ?? text.replace(/\s+/g, ' ').trim().slice(0, 60)) || 'unknown';
}

function labelledValues(text: string, key: string): string[] {
  const escaped = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`(?:^|[\\s*_|])${escaped}\\s*[:\\-]\\s*([^\\n|*]+)`, 'gim');
  return [...text.matchAll(pattern)].map((m) => m[1]!.trim()).filter(Boolean);
}

function coerce(schema: JsonSchema, value: string): unknown {
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (type === 'number' || type === 'integer') {
    const n = Number(value.replace(/[^0-9.+-]/g, ''));
    return Number.isFinite(n) ? (type === 'integer' ? Math.round(n) : n) : 42;
  }
  if (type === 'boolean') return /^(yes|true)/i.test(value);
  return value;
}
