/** Entry: `npm run api`. Reads config, opens connections, serves, and shuts down on SIGINT/SIGTERM. */
import { Client, Connection } from '@temporalio/client';
import { createDb } from '../db/connect.js';
import { loadConfig } from '../lib/config.js';
import { createLogger } from '../lib/log.js';
import { temporalConnectionOptions } from '../lib/temporal-connection.js';
import { createModelClient } from '../llm/model-client.js';
import { createApp } from './app.js';
import type { AppDeps } from './deps.js';
import { answerParserErrorsWithEnvelope } from './errors.js';
import { attachJobWebSocket } from './job-websocket.js';
import { listenForStoredScrapes } from './stored-scrapes.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.logLevel, { role: 'api' });
  const db = createDb(config.databaseUrl, {
    preparedStatements: config.preparedStatements,
    onIdleConnectionError: (err) => log.warn({ err }, 'database: idle connection lost; the pool reconnects'),
  });
  // Lazy, so the API starts (and /health says what is down) while Temporal is still coming up.
  const connection = Connection.lazy(temporalConnectionOptions(config.temporal));
  const temporal = new Client({ connection, namespace: config.temporal.namespace });
  const storedScrapes = listenForStoredScrapes(config.databaseUrl, log);
  const model = config.model ? createModelClient(config.model) : undefined;
  const deps: AppDeps = { db, temporal, config, log, features: { llmConfigured: model !== undefined, emailConfigured: config.smtp !== null, profilesConfigured: config.browser.profileKey !== undefined }, storedScrapes, model };
  const app = createApp(deps);

  const server = app.listen(config.api.port, config.api.host, () => {
    log.info({ url: `http://${config.api.host}:${config.api.port}` }, 'api: listening');
  });
  answerParserErrorsWithEnvelope(server);
  server.on('error', (err) => {
    console.error(err);
    process.exit(1);
  });
  const jobSocket = attachJobWebSocket(server, deps);

  const shutdown = () => {
    log.info('api: shutting down');
    jobSocket.close();
    server.close(async () => {
      await connection.close().catch(() => undefined);
      await storedScrapes.close();
      await db.destroy();
      process.exit(0);
    });
    // Long-polling clients (sync scrapes, websockets) must not hold the process forever.
    setTimeout(() => process.exit(0), 10_000).unref();
    server.closeIdleConnections();
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
