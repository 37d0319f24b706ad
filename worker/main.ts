/** Entry: `npm run worker`. Owns the browser, the database pool and the Temporal connection. */
import { NativeConnection } from '@temporalio/worker';
import { createActivities } from '../activities/index.js';
import { createDb } from '../db/connect.js';
import { loadConfig } from '../lib/config.js';
import { createLogger } from '../lib/log.js';
import { allProxyUrls } from '../lib/proxy-config.js';
import { createContentBlocker } from '../scraper/ad-block/content-blocker.js';
import { addressPolicyFor } from '../scraper/net/address-policy.js';
import { startGuardProxy } from '../scraper/net/guard-proxy.js';
import { createProxyRoutes } from '../scraper/net/proxy-routes.js';
import { createBrowserPool } from '../browser/browser-pool.js';
import { createTransformPool, defaultTransformThreads } from '../scraper/html/transform-pool.js';
import { stopOcr } from '../scraper/files/ocr.js';
import { createModelClient } from '../llm/model-client.js';
import { createSearchProvider } from '../activities/search/providers/registry.js';
import { createSmtpMailer } from '../activities/monitor/mailer.js';
import { createRiskClassifier } from '../activities/threat/classifier.js';
import { BUILT_WORKFLOW_BUNDLE, createSessionWorker, createWorker, readWorkflowBundle, sessionTaskQueue } from './create-worker.js';
import { createLiveSessions } from '../activities/browser/live-sessions.js';
import { createSandbox } from '../sandbox/client.js';
import { ensureSchedules } from './schedules.js';
import { createWorkerMetrics, installRuntime } from './telemetry.js';
import { findFreePort } from '../lib/ports.js';
import { temporalConnectionOptions } from '../lib/temporal-connection.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.logLevel, { role: 'worker' });
  const metricsPort = config.metrics.workerPort;
  // Temporal's own exporter listens on loopback; the worker's /metrics appends what it serves.
  const temporalMetricsPort = metricsPort ? await findFreePort() : undefined;
  installRuntime(log, config.logLevel, temporalMetricsPort);
  const db = createDb(config.databaseUrl, {
    preparedStatements: config.preparedStatements,
    onIdleConnectionError: (err) => log.warn({ err }, 'database: idle connection lost; the pool reconnects'),
  });
  // Before polling starts: a first parse of the filter lists takes seconds of CPU.
  const contentBlocker = await createContentBlocker({ ...config.adblock, log });
  // Every browser request goes through the guard proxy, so redirects and subresources get the
  // same address check as the plain-HTTP engine; it has a listener per upstream proxy, so a
  // page's context can be sent through the proxy its scrape was routed to, and opens one for a
  // caller's own proxy (X-Proxy-Url) while a page uses it.
  const guard = await startGuardProxy({
    policy: addressPolicyFor(config.allowPrivateNetwork),
    upstreams: allProxyUrls(config.proxies),
  });
  const browser = createBrowserPool({
    executablePath: config.browser.executablePath,
    maxConcurrentPages: config.browser.pagesPerWorker,
    proxyServer: guard.url,
    proxyServerFor: guard.urlFor,
    callerProxyServer: guard.leaseFor,
    contentBlocker,
  });
  // Live sessions get a Chromium of their own: a tenant's long session never holds a scrape's page.
  const sessionBrowser = createBrowserPool({
    executablePath: config.browser.executablePath,
    maxConcurrentPages: config.browser.sessionsPerWorker,
    proxyServer: guard.url,
    proxyServerFor: guard.urlFor,
    callerProxyServer: guard.leaseFor,
    contentBlocker,
  });
  const sandbox = createSandbox();
  const liveSessions = createLiveSessions({
    browser: sessionBrowser,
    sandbox,
    taskQueue: sessionTaskQueue(config.temporal.taskQueue),
    capacity: config.browser.sessionsPerWorker,
  });
  const threads = config.worker.htmlThreads ?? defaultTransformThreads();
  const htmlThreads = threads > 0 ? createTransformPool(threads) : undefined;
  const metrics = createWorkerMetrics(browser);
  const metricsServer = metricsPort ? await metrics.start(metricsPort, temporalMetricsPort) : undefined;
  const connection = await NativeConnection.connect(temporalConnectionOptions(config.temporal));
  const bundlePath = config.worker.workflowBundle ?? BUILT_WORKFLOW_BUNDLE;
  try {
    const activities = createActivities({
        db,
        browser,
        allowPrivateNetwork: config.allowPrivateNetwork,
        proxies: createProxyRoutes(config.proxies),
        transformHtml: htmlThreads?.transform,
        mediaRetentionHours: config.media.retentionHours,
        resultRetentionHours: config.results.retentionHours,
        llm: config.model ? createModelClient(config.model) : undefined,
        search: createSearchProvider(config.search, db),
        threatClassifier: createRiskClassifier(config.threat),
        mailer: config.smtp ? createSmtpMailer(config.smtp) : undefined,
        pageMetrics: metrics.pages,
        liveSessions,
        profileKey: config.browser.profileKey,
      });
    const worker = await createWorker({
      connection,
      namespace: config.temporal.namespace,
      taskQueue: config.temporal.taskQueue,
      activities,
      maxConcurrentActivities: config.worker.activitySlots,
      workflowBundle: bundlePath ? await readWorkflowBundle(bundlePath) : undefined,
    });
    const sessionWorker = await createSessionWorker({ connection, namespace: config.temporal.namespace, taskQueue: liveSessions.taskQueue, activities });
    await ensureSchedules(config.temporal);
    log.info({ taskQueue: config.temporal.taskQueue, sessionTaskQueue: liveSessions.taskQueue, address: config.temporal.address }, 'worker: started');
    // The Temporal runtime turns SIGINT/SIGTERM into shutdown() of both; run() resolves after it.
    await Promise.all([worker.run(), sessionWorker.run()]);
    log.info('worker: stopped');
  } finally {
    metricsServer?.close();
    liveSessions.closeAll();
    await Promise.all([browser.close(), sessionBrowser.close(), sandbox.close()]);
    await htmlThreads?.close();
    // Its thread would keep the process alive after everything else closed.
    await stopOcr();
    await guard.close();
    await connection.close();
    await db.destroy();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
