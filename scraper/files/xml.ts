/**
 * XML inside Office, OpenDocument and EPUB containers, read with sax: it knows no DTDs, so it
 * resolves no external entity and expands no nested one; a document that declares them fails to
 * parse (an undefined entity is an error in strict mode) and so is a 422, like any malformed XML.
 */
import sax from 'sax';
import { strFromU8, type Unzipped } from 'fflate';
import { parseFailed } from './office-zip.js';

export interface XmlHandlers {
  open?: (node: sax.Tag) => void;
  text?: (text: string) => void;
  close?: (name: string) => void;
}

/** Streams `source` through the handlers; `what` names the file in the error ("The presentation"). */
export function parseXml(source: string, handlers: XmlHandlers, what: string): void {
  const parser = sax.parser(true, { trim: false, normalize: false });
  if (handlers.open) parser.onopentag = handlers.open as (node: sax.Tag | sax.QualifiedTag) => void;
  if (handlers.text) parser.ontext = handlers.text;
  if (handlers.close) parser.onclosetag = handlers.close;
  try {
    parser.write(source).close();
  } catch (err) {
    throw parseFailed(`${what} could not be read: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`, err);
  }
}

/** A part of the container as text; `what` names the file in the error. */
export function zipText(files: Unzipped, path: string, what: string): string {
  const data = files[path];
  if (!data) throw parseFailed(`${what} has no ${path}`);
  return strFromU8(data);
}

/** `target` relative to the folder `dir` of the part that names it, as a path inside the container. */
export function resolvePath(dir: string, target: string): string {
  const parts = target.startsWith('/') || !dir ? [] : dir.split('/');
  for (const piece of target.replace(/^\//, '').split('/')) {
    if (piece === '..') parts.pop();
    else if (piece !== '.' && piece !== '') parts.push(piece);
  }
  return parts.join('/');
}

/** A string attribute of a tag ('' when absent). */
export function attr(node: sax.Tag, name: string): string {
  const value = node.attributes[name];
  return typeof value === 'string' ? value : '';
}
