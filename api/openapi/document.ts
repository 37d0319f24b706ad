/** The OpenAPI 3.1 document, built once from api/openapi/operations.ts. */
import { z } from 'zod';
import { operations, type Operation } from './operations.js';
import { errorEnvelope } from './responses.js';

const STATUS_TEXT: Record<number, string> = {
  400: 'Invalid request: `details` names the fields',
  401: 'Missing or unknown API key',
  402: 'Not enough credits',
  403: 'The key lacks the scope, or the target is refused (SSRF_BLOCKED)',
  404: 'Not found, or expired (JOB_EXPIRED)',
  408: 'The deadline passed',
  409: 'Conflict (a reused idempotency key, a job already finished)',
  429: 'Rate or concurrency limit; see Retry-After',
  500: 'The page could not be processed',
  502: 'The target site could not be reached',
  503: 'A dependency (Temporal) is unavailable; nothing was started',
};

type JsonSchema = Record<string, unknown>;

/** Request bodies as the client writes them (defaults optional), responses as the server sends them. */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _draft, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  return rest;
}

function operationObject(op: Operation, version: string): JsonSchema {
  const errors = [...new Set([...op.errors, ...(op.auth ? [401, 403, 429] : [])])].sort();
  const pathParams = [...op.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  const params = (where: 'query' | 'header', schema: z.ZodObject | undefined) =>
    schema
      ? Object.entries((jsonSchema(schema, 'input').properties ?? {}) as Record<string, JsonSchema>).map(([name, property]) => ({
          name,
          in: where,
          required: false,
          schema: property,
          ...(typeof property.description === 'string' && { description: property.description }),
        }))
      : [];
  const queryParams = [...params('query', op.query), ...params('header', op.headers)];
  const success = op.produces
    ? { [op.produces]: { schema: { type: 'string', format: 'binary' } } }
    : { 'application/json': { schema: jsonSchema(op.response, 'output') } };
  return {
    operationId: `${op.method}${op.path.replace(/[{}]/g, '').replace(/[/-](\w)/g, (_m, c: string) => c.toUpperCase())}`,
    summary: op.summary,
    tags: [version === 'v1' ? `${op.tag} (v1)` : op.tag],
    ...(op.auth ? {} : { security: [] }),
    ...(pathParams.length + queryParams.length > 0 && { parameters: [...pathParams, ...queryParams] }),
    ...(op.body && { requestBody: { required: true, content: requestContent(op, op.body) } }),
    responses: {
      200: { description: 'OK', content: success },
      ...Object.fromEntries(
        errors.map((status) => [
          status,
          { description: STATUS_TEXT[status] ?? 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
        ]),
      ),
    },
  };
}

/** A multipart body is a `file` part and an `options` part holding the schema's JSON. */
function requestContent(op: Operation, body: NonNullable<Operation['body']>): JsonSchema {
  const schema = jsonSchema(body, 'input');
  if (op.consumes !== 'multipart/form-data') return { 'application/json': { schema } };
  return {
    'multipart/form-data': {
      schema: {
        type: 'object',
        required: ['file'],
        properties: { file: { type: 'string', format: 'binary', description: 'The file, up to 50 MB' }, options: schema },
      },
      encoding: { options: { contentType: 'application/json' } },
    },
  };
}

export function buildOpenApiDocument(version: string): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const op of operations) {
    const apiVersion = op.path.startsWith('/v1/') ? 'v1' : 'v2';
    (paths[op.path] ??= {})[op.method] = operationObject(op, apiVersion);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Trawl',
      version,
      description:
        'Self-hostable web scraping and crawling that speaks the Firecrawl API (v1 and v2). Every error has the envelope `{success: false, error, code?, details?}`.',
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key: `Authorization: Bearer fc-…`' } },
      schemas: { Error: jsonSchema(errorEnvelope, 'output') },
    },
    paths,
  };
}
