/**
 * The search providers, by SEARCH_PROVIDER. To add one (Serper, Brave, SearchAPI): write
 * `providers/<name>-provider.ts` returning a SearchProvider, and add its line here.
 */
import type { Db } from '../../../db/connect.js';
import type { ActivityDeps } from '../../deps.js';
import type { SearchConfig } from '../../../lib/config.js';
import type { SearchProvider } from '../provider.js';
import { createIndexProvider } from './index-provider.js';
import { createSearxngProvider } from './searxng-provider.js';

export function createSearchProvider(config: SearchConfig, db: Db): SearchProvider {
  switch (config.provider) {
    case 'index':
      return createIndexProvider(db);
    case 'searxng':
      return createSearxngProvider(config.searxngEndpoint!);
  }
}

/** The worker's provider, or the built-in index for deps built without one (tests). */
export function searchProviderOf(deps: ActivityDeps): SearchProvider {
  return deps.search ?? createIndexProvider(deps.db);
}
