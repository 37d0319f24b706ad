/** The real Express app over a real database, in the test's own process, for API tests that need no workflows to run. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../api/app.js';
import type { AppDeps } from '../../api/deps.js';
import { answerParserErrorsWithEnvelope } from '../../api/errors.js';
import { createLogger } from '../../lib/log.js';

export interface InProcessApp {
  base: string;
  close(): Promise<void>;
}

/** Temporal, the model and stored-scrape notices are stubbed unless the caller passes its own. */
export async function serveApp(deps: Pick<AppDeps, 'db' | 'config'> & Partial<AppDeps>): Promise<InProcessApp> {
  const server = createServer(
    createApp({
      log: createLogger('silent'),
      temporal: {} as never,
      features: { llmConfigured: false },
      storedScrapes: { wait: () => ({ stored: new Promise(() => {}), cancel: () => {} }), close: async () => {} },
      ...deps,
    }),
  );
  answerParserErrorsWithEnvelope(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
