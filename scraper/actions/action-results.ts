import type { MediaPublisher } from '../media.js';
import type { ActionOutputs } from '../types.js';
import { noActionOutputs } from './run-actions.js';

/** The Document's `actions` field, as Firecrawl shapes it. */
export interface DocumentActions {
  screenshots: string[];
  scrapes: ActionOutputs['scrapes'];
  javascriptReturns: ActionOutputs['javascriptReturns'];
  pdfs: string[];
}

/**
 * Screenshots and PDFs become URLs (or data: URIs) through `publish`. A page that gave no
 * document to act on (a 204, an auth challenge) ran no actions and reports empty lists.
 */
export async function documentActions(outputs: ActionOutputs | undefined, publish: MediaPublisher): Promise<DocumentActions> {
  const ran = outputs ?? noActionOutputs();
  const publishAll = async (media: ActionOutputs['pdfs']): Promise<string[]> => {
    const links: string[] = [];
    for (const item of media) links.push(await publish(item));
    return links;
  };
  return {
    screenshots: await publishAll(ran.screenshots),
    scrapes: ran.scrapes,
    javascriptReturns: ran.javascriptReturns,
    pdfs: await publishAll(ran.pdfs),
  };
}
