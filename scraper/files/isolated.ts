/**
 * Office and table files are parsed on a thread of their own, one per file, under a heap limit and
 * the page's deadline: a hostile file that makes a library spin or allocate without end ends its
 * thread (terminated at the deadline, or out of its heap), never the worker's event loop, which
 * must keep heartbeating every other page.
 */
import { Worker } from 'node:worker_threads';
import { NonRetryablePageError } from '../../lib/errors.js';
import type { FileHtml, HtmlFileKind } from './office-html.js';
import type { FileFailure, FileJob } from './office-thread.js';
import { parseFailed } from './office-zip.js';

/** From sources, a boot file registers tsx in the thread first; compiled (dist/), the thread's own module. */
const THREAD_BOOT = import.meta.url.endsWith('.ts')
  ? new URL('./office-thread-boot.mjs', import.meta.url)
  : new URL('./office-thread.js', import.meta.url);

/** A converter's working set is a few times the XML it reads; the zip limits cap that at 200 MB. */
const THREAD_HEAP_MB = 1024;

export interface ThreadLimits {
  /** Epoch ms. */
  deadline: number;
  signal: AbortSignal;
}

export function fileToHtmlIsolated(kind: HtmlFileKind, body: Buffer, contentType: string | undefined, limits: ThreadLimits): Promise<FileHtml> {
  const outOfTime = () => parseFailed(`The ${kind.toUpperCase()} file took longer than the request's time budget to parse`);
  if (limits.signal.aborted) return Promise.reject(limits.signal.reason instanceof Error ? limits.signal.reason : parseFailed('The parse was cancelled'));
  if (Date.now() >= limits.deadline) return Promise.reject(outOfTime());
  return new Promise<FileHtml>((resolve, reject) => {
    const worker = new Worker(THREAD_BOOT, { execArgv: [], resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB } });
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      limits.signal.removeEventListener('abort', onAbort);
      void worker.terminate();
      outcome();
    };
    const timer = setTimeout(() => settle(() => reject(outOfTime())), limits.deadline - Date.now());
    const onAbort = () => settle(() => reject(limits.signal.reason instanceof Error ? limits.signal.reason : parseFailed('The parse was cancelled')));
    limits.signal.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (msg: { result?: FileHtml; error?: FileFailure }) =>
      settle(() => (msg.result ? resolve(msg.result) : reject(rebuilt(msg.error!)))),
    );
    worker.once('error', (err) => settle(() => reject(parseFailed(`The ${kind.toUpperCase()} file could not be parsed: ${err.message}`, err))));
    worker.once('exit', (code) => settle(() => reject(parseFailed(`The ${kind.toUpperCase()} file could not be parsed (its thread exited with code ${code})`))));
    // The bytes are copied once into the thread; the caller keeps its Buffer.
    worker.postMessage({ kind, body: new Uint8Array(body), contentType } satisfies FileJob);
  });
}

function rebuilt(failure: FileFailure): Error {
  return failure.code ? new NonRetryablePageError(failure.code as 'PARSE_FAILED', failure.message) : parseFailed(failure.message);
}
