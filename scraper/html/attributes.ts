/**
 * The `attributes` format: for each selector, the values of one attribute on the elements it
 * matches, in document order, read from the whole page as served (main-content filtering and
 * include/exclude tags do not apply: the selector already names the elements). As in Firecrawl,
 * an element without the attribute is tried for `data-<attribute>`, and empty values are left out.
 * Selectors are bounded and compiled as includeTags' are, and an invalid one is a 400 naming it.
 */
import { selectAll } from 'css-select';
import { NonRetryablePageError } from '../../lib/errors.js';
import type { AnyNode, Document, Element } from './dom.js';

export interface AttributeRequest {
  selector: string;
  attribute: string;
}

export interface AttributeValues extends AttributeRequest {
  values: string[];
}

export function extractAttributes(doc: Document, requests: readonly AttributeRequest[]): AttributeValues[] {
  return requests.map(({ selector, attribute }) => {
    let matched: Element[];
    try {
      matched = selectAll<AnyNode, Element>(selector, doc);
    } catch (cause) {
      throw new NonRetryablePageError('BAD_REQUEST', `Invalid CSS selector in formats.attributes: ${selector}`, { cause });
    }
    // The parser lower-cases HTML attribute names.
    const name = attribute.toLowerCase();
    const values: string[] = [];
    for (const el of matched) {
      const value = el.attribs[name] || (name.startsWith('data-') ? undefined : el.attribs[`data-${name}`]);
      if (value) values.push(value);
    }
    return { selector, attribute, values };
  });
}

/** What a response that is not HTML has for every selector: nothing. */
export function noAttributes(requests: readonly AttributeRequest[]): AttributeValues[] {
  return requests.map((request) => ({ ...request, values: [] }));
}
