/**
 * Whether one browser request is an ad or tracker, by the filter lists: network rules with
 * their options (`$third-party`, `$domain=`, resource types) and exceptions (`@@`). A rule's
 * `redirect=` is treated as a block, since no replacement resources are loaded.
 */
import { Request, type FiltersEngine } from '@ghostery/adblocker';
import type { BlockableRequest } from '../../browser/browser-pool.js';

export function requestBlocker(engine: FiltersEngine): (request: BlockableRequest) => boolean {
  return ({ url, resourceType, documentUrl }) =>
    engine.match(
      Request.fromRawDetails({
        url,
        // Ghostery takes Playwright's resource type names (script, image, xhr, fetch, ...) as they are.
        type: resourceType as Parameters<typeof Request.fromRawDetails>[0]['type'],
        sourceUrl: documentUrl,
      }),
    ).match;
}
