/**
 * Fields and values Firecrawl's clients send for products of Firecrawl's cloud that a self-hosted
 * service cannot offer. They are accepted, so an unmodified client (the SDK, the MCP server, whose
 * search tool sends `sources: ["web", "alexandria"]`, `domainTools` and `toolDetail` on every call)
 * keeps working, and the response's `warning` says what was not done: never a failed request for
 * them, never a pretence that the product ran. Keys no Firecrawl client sends stay a 400.
 *
 * This is the one list of them (README, "Accepted but not done", shows it and a unit test keeps the
 * two in step); the schemas import the shapes below and the routes and the page pipeline ask
 * `notDoneWarnings` what to say.
 */
import { z } from 'zod';

export const toolDetailSchema = z
  .enum(['compact', 'summary', 'full'])
  .optional()
  .describe("Detail of Firecrawl's Alexandria tool matches; accepted, no tools are matched here");

export const domainToolsSchema = z
  .boolean()
  .optional()
  .describe("Firecrawl's domain-matched Alexandria tools; accepted, no tools are matched here");

export const auditMetadataSchema = z
  .strictObject({ username: z.string().max(1024) })
  .optional()
  .describe("For Firecrawl's SIEM audit export; kept with the job's options, exported nowhere");

/** Firecrawl's spellings of the developer category; it folds them into `developer`. */
export const DEVELOPER_CATEGORY_ALIASES = ['developer', 'repo', 'code', 'docs', 'devdex', 'repo_search', 'developer_index'] as const;

export function isDeveloperCategory(name: string): boolean {
  return (DEVELOPER_CATEGORY_ALIASES as readonly string[]).includes(name);
}

/** What a request kind carries of the fields below; structural, so any of its bodies fits. */
interface ScrapeOptionsFields {
  domainTools?: boolean;
  useMock?: string;
  auditMetadata?: unknown;
}
interface SearchFields {
  sources: readonly (string | { type: string })[];
  domainTools?: boolean;
  categories: readonly (string | { type: string })[];
  enterprise?: readonly string[];
  asyncScraping?: boolean;
}
interface AuditedFields {
  auditMetadata?: unknown;
}

export interface NotDone<Body> {
  /** The field, or `field: value`, as the README lists it. */
  field: string;
  /** Where it is accepted. */
  where: string;
  /** Whether this body asked for it: only then is the warning given. */
  asked(body: Body): boolean;
  warning: string;
}

const typeOf = (entry: string | { type: string }) => (typeof entry === 'string' ? entry : entry.type);

const ALEXANDRIA_WARNING =
  "Firecrawl's Alexandria tool catalogue (sources alexandria, domainTools, toolDetail) is a Firecrawl cloud product: no tools were matched or returned.";
const AUDIT_WARNING =
  "auditMetadata feeds Firecrawl's SIEM audit export, which Trawl does not have: it is kept with the job's options and exported nowhere.";

export const ACCEPTED_NOT_DONE = {
  /** ScrapeOptions: /v2/scrape, batch scrape, crawl `scrapeOptions`, search `scrapeOptions`. */
  scrapeOptions: [
    {
      field: 'domainTools: true',
      where: 'scrape options',
      asked: (o) => o.domainTools === true,
      warning: ALEXANDRIA_WARNING,
    },
    {
      field: 'toolDetail',
      where: 'scrape options',
      // It only details the tools domainTools would match: nothing is asked without them.
      asked: () => false,
      warning: ALEXANDRIA_WARNING,
    },
    {
      field: 'useMock',
      where: 'scrape options',
      asked: (o) => o.useMock !== undefined,
      warning: "useMock names one of Firecrawl's recorded test responses, which Trawl does not have: the page was fetched live.",
    },
    { field: 'auditMetadata', where: 'scrape options', asked: (o) => o.auditMetadata !== undefined, warning: AUDIT_WARNING },
  ] satisfies NotDone<ScrapeOptionsFields>[],
  search: [
    {
      field: 'sources: alexandria',
      where: 'search',
      asked: (b) => b.sources.some((s) => typeOf(s) === 'alexandria') || b.domainTools === true,
      warning: ALEXANDRIA_WARNING,
    },
    { field: 'domainTools: true', where: 'search', asked: (b) => b.domainTools === true, warning: ALEXANDRIA_WARNING },
    { field: 'toolDetail', where: 'search', asked: () => false, warning: ALEXANDRIA_WARNING },
    {
      field: `categories: developer (and ${DEVELOPER_CATEGORY_ALIASES.slice(1).join(', ')})`,
      where: 'search',
      asked: (b) => b.categories.some((c) => isDeveloperCategory(typeOf(c))),
      warning:
        "The developer category is Firecrawl's cloud index of repositories, issues and documentation, which Trawl does not have: these are ordinary web results.",
    },
    {
      field: 'enterprise: anon',
      where: 'search',
      asked: (b) => b.enterprise?.includes('anon') === true,
      warning: "enterprise anon is Firecrawl's anonymised cloud search: this search ran as an ordinary one on Trawl's own provider.",
    },
    {
      field: 'asyncScraping: true',
      where: 'search',
      asked: (b) => b.asyncScraping === true,
      warning: 'asyncScraping has no effect (as in Firecrawl today): the results were scraped before the answer.',
    },
  ] satisfies NotDone<SearchFields>[],
  map: [{ field: 'auditMetadata', where: 'map', asked: (b) => b.auditMetadata !== undefined, warning: AUDIT_WARNING }] satisfies NotDone<AuditedFields>[],
  agent: [{ field: 'auditMetadata', where: 'agent', asked: (b) => b.auditMetadata !== undefined, warning: AUDIT_WARNING }] satisfies NotDone<AuditedFields>[],
};

type Kinds = typeof ACCEPTED_NOT_DONE;
type BodyOf<K extends keyof Kinds> = Kinds[K][number] extends NotDone<infer Body> ? Body : never;

/** The warnings a request of this kind earns, each once, joined; undefined when it asked for none. */
export function notDoneWarnings<K extends keyof Kinds>(kind: K, body: BodyOf<K>): string | undefined {
  const entries = ACCEPTED_NOT_DONE[kind] as readonly NotDone<BodyOf<K>>[];
  const warnings = new Set(entries.filter((entry) => entry.asked(body)).map((entry) => entry.warning));
  return warnings.size > 0 ? [...warnings].join(' ') : undefined;
}
