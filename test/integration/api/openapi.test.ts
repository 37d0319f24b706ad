/**
 * The OpenAPI document covers the API exactly: every route the app serves has an operation, and
 * every operation a route. Request bodies come from the validating schemas, so a field added to
 * a schema appears here without anyone writing it twice.
 */
import { describe, expect, it } from 'vitest';
import { createApp } from '../../../api/app.js';
import type { AppDeps } from '../../../api/deps.js';
import { buildOpenApiDocument } from '../../../api/openapi/document.js';
import { loadConfig } from '../../../lib/config.js';
import { createLogger } from '../../../lib/log.js';

/** Routes that are not API operations: the document itself, the page that renders it, the dashboard's pages. */
const NOT_OPERATIONS = new Set(['get /openapi.json', 'get /docs', 'get /docs/init.js']);
const isDashboard = (route: string) => route.split(' ')[1]!.startsWith('/dashboard');

interface Layer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** `get /v2/crawl/{id}` for every route of the app, mounted routers included. */
function servedRoutes(): string[] {
  const deps = { config: loadConfig({}), log: createLogger('silent') } as unknown as AppDeps;
  const app = createApp(deps) as unknown as { router: { stack: Layer[] } };
  const found: string[] = [];
  const walk = (stack: Layer[]) => {
    for (const layer of stack) {
      if (layer.route) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        for (const path of paths) {
          for (const method of Object.keys(layer.route.methods)) {
            found.push(`${method} ${path.replace(/[:*](\w+)/g, '{$1}')}`);
          }
        }
      } else if (layer.handle?.stack) {
        walk(layer.handle.stack);
      }
    }
  };
  walk(app.router.stack);
  return [...new Set(found)].filter((r) => !NOT_OPERATIONS.has(r) && !isDashboard(r)).sort();
}

function documentedRoutes(doc: Record<string, unknown>): string[] {
  const paths = doc.paths as Record<string, Record<string, unknown>>;
  return Object.entries(paths)
    .flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m} ${path}`))
    .sort();
}

describe('OpenAPI document', () => {
  const doc = buildOpenApiDocument('test');

  it('has an operation for every route and a route for every operation', () => {
    const served = servedRoutes();
    expect(served.length).toBeGreaterThan(30);
    expect(documentedRoutes(doc)).toEqual(served);
  });

  it('takes request bodies from the validating zod schemas', () => {
    const paths = doc.paths as Record<string, Record<string, any>>;
    const scrape = paths['/v2/scrape']!.post.requestBody.content['application/json'].schema;
    expect(scrape.required).toEqual(['url']);
    expect(scrape.properties.formats).toBeDefined();
    expect(scrape.properties.onlyMainContent).toMatchObject({ type: 'boolean', default: true });
    const crawl = paths['/v2/crawl']!.post.requestBody.content['application/json'].schema;
    expect(crawl.properties.scrapeOptions).toBeDefined();
    expect(crawl.properties.limit).toMatchObject({ type: 'integer', maximum: 100_000 });
  });

  it('documents the error envelope and bearer auth on every authenticated operation', () => {
    const paths = doc.paths as Record<string, Record<string, any>>;
    expect((doc.components as any).securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    const status = paths['/v2/crawl/{id}']!.get;
    expect(status.responses[404].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    expect(status.responses[401]).toBeDefined();
    expect(status.parameters.map((p: { name: string }) => p.name)).toEqual(['id', 'skip', 'limit']);
    expect(paths['/health']!.get.security).toEqual([]);
    expect((doc.components as any).schemas.Error.required).toEqual(['success', 'error']);
  });
});
