/**
 * The most pages one job covers: a crawl's or a map's `limit`, a batch scrape's URLs, as Firecrawl
 * bounds them. The schemas refuse more, and the activities size what they read and keep for a job
 * (sitemap URLs, the frontier keys a worker remembers) by the same figure.
 */
export const MAX_JOB_PAGES = 100_000;
