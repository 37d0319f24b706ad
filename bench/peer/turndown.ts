/**
 * The "plain turndown" conversion the peers do: the whole page through turndown with the GFM
 * plugin (tables), minus the elements whose text is never content. It is what a Crawlee user
 * writes in a request handler, and the baseline of the markdown-throughput scenario.
 */
import TurndownService from 'turndown';
import { gfm } from 'turndown-plugin-gfm';

export function createPlainTurndown(): TurndownService {
  const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' });
  service.use(gfm);
  service.remove(['script', 'style', 'noscript', 'head', 'title']);
  return service;
}
