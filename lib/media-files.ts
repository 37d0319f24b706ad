/**
 * Names of stored media: `<id>.<ext>`, where the id is 32 random bytes (base64url). Knowing the
 * name is the only permission needed to download the file, so it must never be guessable.
 * The worker names the files it stores; the API parses the names it is asked for.
 */
import { randomBytes } from 'node:crypto';
import type { CapturedMedia } from '../scraper/types.js';

export type MediaType = CapturedMedia['mimeType'];

const EXTENSIONS: Readonly<Record<MediaType, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'application/pdf': 'pdf',
};

const FILE_NAME = /^([A-Za-z0-9_-]{43})\.([a-z]+)$/;

export function newMediaId(): string {
  return randomBytes(32).toString('base64url');
}

export function mediaFileName(id: string, mimeType: MediaType): string {
  return `${id}.${EXTENSIONS[mimeType]}`;
}

/** The id and the type its extension names; undefined for anything that is not a media file name. */
export function parseMediaFileName(name: string): { id: string; mimeType: MediaType } | undefined {
  const match = FILE_NAME.exec(name);
  if (!match) return undefined;
  const entry = Object.entries(EXTENSIONS).find(([, ext]) => ext === match[2]);
  return entry && { id: match[1]!, mimeType: entry[0] as MediaType };
}
