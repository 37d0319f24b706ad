/** The workflows a worker registers. Only re-exports: each workflow lives in its own file. */
export { scrapeWorkflow } from './scrape.js';
