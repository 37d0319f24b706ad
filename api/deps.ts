/**
 * What the HTTP app and every router are built from. Its own module (not api/app.ts) so routes
 * and helpers can name it without importing the app that imports them.
 */
import type { Client } from '@temporalio/client';
import type { Db } from '../db/connect.js';
import type { Config } from '../lib/config.js';
import type { Logger } from '../lib/log.js';
import type { ModelClient } from '../llm/model-client.js';
import type { ApiMetrics } from './metrics.js';
import type { StoredScrapes } from './stored-scrapes.js';
import type { DeploymentFeatures } from './unsupported-options.js';

export interface AppDeps {
  db: Db;
  temporal: Client;
  config: Readonly<Config>;
  log: Logger;
  features: DeploymentFeatures;
  storedScrapes: StoredScrapes;
  /** The configured language model, for /health only: model calls run in the worker. */
  model?: Pick<ModelClient, 'model' | 'ping'>;
  /** The app's metrics, which createApp adds for the routes: job starts are counted where they happen. */
  metrics?: Pick<ApiMetrics, 'jobStarted'>;
}
