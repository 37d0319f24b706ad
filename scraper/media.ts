import type { CapturedMedia } from './types.js';

/**
 * Turns captured screenshot or PDF bytes into the string a Document carries. The scrape activity
 * stores them and returns a URL the API serves; the bytes never reach a Temporal payload.
 */
export type MediaPublisher = (media: CapturedMedia) => Promise<string>;

/** The bytes inline, as a data: URI: for SCREENSHOT_DATA_URIS=true and for callers without storage. */
export const inlineMedia: MediaPublisher = async ({ data, mimeType }) =>
  `data:${mimeType};base64,${data.toString('base64')}`;
