/** The workflows a worker registers. Only re-exports: each workflow lives in its own file. */
export { batchScrapeWorkflow } from './batch-scrape.js';
export { crawlWorkflow } from './crawl.js';
export { mapWorkflow } from './map.js';
export { scrapeWorkflow } from './scrape.js';
export { purgeExpiredWorkflow } from './purge.js';
export { crawlParamsPreviewWorkflow } from './crawl-params-preview.js';
export { extractWorkflow } from './extract.js';
export { searchWorkflow } from './search.js';
export { agentWorkflow, subAgentWorkflow } from './agent.js';
export { monitorCheckWorkflow } from './monitor-check.js';
export { browserSessionWorkflow } from './browser-session.js';
