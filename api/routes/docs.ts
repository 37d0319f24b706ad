/**
 * GET /openapi.json (the OpenAPI document) and GET /docs (an API reference rendered from it by
 * Swagger UI, served from node_modules: no CDN, no outside request). Neither needs a key.
 */
import { createRequire } from 'node:module';
import express, { Router } from 'express';
import { buildOpenApiDocument } from '../openapi/document.js';

const require = createRequire(import.meta.url);
const swaggerUiDir: string = (require('swagger-ui-dist') as { getAbsoluteFSPath(): string }).getAbsoluteFSPath();
const { version } = require('../../package.json') as { version: string };

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Trawl API reference</title>
  <link rel="icon" href="/docs/assets/favicon-32x32.png">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#reference', deepLinking: true, validatorUrl: null });\n`;

export function docsRoutes(): Router {
  const router = Router();
  const document = buildOpenApiDocument(version);
  router.get('/openapi.json', (_req, res) => {
    res.json(document);
  });
  router.get('/docs', (_req, res) => {
    res.type('html').send(PAGE);
  });
  router.get('/docs/init.js', (_req, res) => {
    res.type('js').send(INIT);
  });
  router.use('/docs/assets', express.static(swaggerUiDir, { index: false, maxAge: '1d' }));
  return router;
}
