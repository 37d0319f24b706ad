/**
 * A one-file thread (isolated.ts): parses the file posted to it and posts the HTML back. The
 * thread exists only for this file, so terminating it is how a file past its time budget is stopped.
 */
import { parentPort } from 'node:worker_threads';
import { TrawlError } from '../../lib/errors.js';
import { decodeBody } from '../html/decode.js';
import { fileToHtml, type HtmlFileKind } from './office-html.js';

export interface FileJob {
  kind: HtmlFileKind;
  body: Uint8Array;
  contentType?: string;
}

export interface FileFailure {
  message: string;
  code?: string;
}

parentPort?.once('message', ({ kind, body, contentType }: FileJob) => {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  fileToHtml(kind, bytes, () => decodeBody(bytes, contentType)).then(
    (result) => parentPort!.postMessage({ result }),
    (err: unknown) => {
      const error: FileFailure = err instanceof TrawlError ? { message: err.message, code: err.code } : { message: err instanceof Error ? err.message : String(err) };
      parentPort!.postMessage({ error });
    },
  );
});
