/**
 * `redactPII` over every text output of the page (lib/patterns/pii.ts finds the spans): the
 * markdown, HTML, raw HTML, links, metadata, attributes, action results, and what the model and
 * change tracking made of them. Two passes of the same redaction: before any other step, so the
 * model, the change-tracking snapshot and the diff only ever read the redacted page, and after
 * them all, for anything their output holds. Redacting twice changes nothing more.
 *
 * Left as they are: the Document's ids, URLs of its own request and its media (a screenshot is an
 * image: the warning says it was not redacted), `rawBase64` (bytes; the API refuses the two
 * together), and Trawl's own warning. +4 credits, and +4 per PDF page after the first, as
 * Firecrawl charges.
 */
import { CREDIT_COSTS } from '../../../lib/credits.js';
import { createRedactor, unfoundEntities, type Redactor } from '../../../lib/patterns/pii.js';
import type { EnrichStep } from './step.js';
import { addWarning } from './model.js';

/** Keys whose values are not text the page supplied. */
const NOT_PAGE_TEXT: ReadonlySet<string> = new Set(['screenshot', 'screenshots', 'pdfs', 'rawBase64', 'warning']);
const REQUEST_METADATA: ReadonlySet<string> = new Set([
  'sourceURL',
  'url',
  'scrapeId',
  'statusCode',
  'contentType',
  'cacheState',
  'cachedAt',
  'creditsUsed',
  'proxyUsed',
  'numPages',
]);
const HTML_KEYS: ReadonlySet<string> = new Set(['html', 'rawHtml']);

function redactValue(value: unknown, redactor: Redactor, html: boolean): unknown {
  if (typeof value === 'string') return redactor.redact(value, html);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, redactor, html));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, NOT_PAGE_TEXT.has(key) ? item : redactValue(item, redactor, html || HTML_KEYS.has(key))]),
    );
  }
  return value;
}

function redactDocument(document: Record<string, unknown> & { metadata: Record<string, unknown> }, redactor: Redactor): void {
  for (const [key, value] of Object.entries(document)) {
    if (NOT_PAGE_TEXT.has(key) || key === 'metadata') continue;
    document[key] = redactValue(value, redactor, HTML_KEYS.has(key));
  }
  for (const [key, value] of Object.entries(document.metadata)) {
    if (!REQUEST_METADATA.has(key)) document.metadata[key] = redactValue(value, redactor, false);
  }
}

export const redactPiiStep: EnrichStep = {
  name: 'redactPII',
  appliesTo: (_outputs, options) => options.redactPII !== undefined,
  async run({ options, outputs, outcome }) {
    const settings = options.redactPII!;
    redactDocument(outcome.document, createRedactor(settings));
    const unfound = unfoundEntities(settings);
    if (unfound.length > 0) {
      addWarning(
        outcome,
        `redactPII found no ${unfound.join(' or ')} spans: Trawl's redaction is deterministic (e-mail addresses, phone numbers, card numbers, IBANs, IP addresses) whatever the mode, and names and secrets need a model.`,
      );
    }
    if (outputs.screenshot || options.actions?.some((a) => a.type === 'screenshot' || a.type === 'pdf')) {
      addWarning(outcome, 'redactPII does not redact screenshots or PDFs of the page: they are images.');
    }
    const extraPdfPages = outcome.pdf?.parsed ? Math.max(0, outcome.pdf.pages - 1) : 0;
    return CREDIT_COSTS.redactPII * (1 + extraPdfPages);
  },
};

/** The second pass, after every other step; the first charged for both. */
export const redactPiiOutputsStep: EnrichStep = {
  name: 'redactPII:outputs',
  appliesTo: redactPiiStep.appliesTo,
  async run({ options, outcome }) {
    redactDocument(outcome.document, createRedactor(options.redactPII!));
    return 0;
  },
};
