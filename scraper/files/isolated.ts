/**
 * Work on untrusted files runs on a thread of its own, one per file, under a heap limit and the
 * page's deadline: Office and table parsing, all of a PDF's pdf.js work (opening it, reading each
 * page's text layer, drawing pages for OCR) and the denoise filter. A hostile file that makes a library spin, allocate without end or draw for minutes
 * ends its thread (terminated at the deadline, or out of its heap), never the worker's event loop,
 * which must keep heartbeating every other page.
 */
import { Worker } from 'node:worker_threads';
import { NonRetryablePageError } from '../../lib/errors.js';
import type { FileHtml, HtmlFileKind } from './office-html.js';
import type { FileFailure, FileJob, JobResult } from './file-thread.js';
import { parseFailed } from './office-zip.js';

/** From sources, a boot file registers tsx in the thread first; compiled (dist/), the thread's own module. */
const THREAD_BOOT = import.meta.url.endsWith('.ts') ? new URL('./file-thread-boot.mjs', import.meta.url) : new URL('./file-thread.js', import.meta.url);

/**
 * A converter's working set is a few times the XML it reads (the zip limits cap that at 200 MB); a
 * rendered page at 144 dpi is a few tens of MB of pixels, and pdf.js's operator list of a page that
 * draws a form within a form without end grows until this limit ends it.
 */
const THREAD_HEAP_MB = 1024;

export interface ThreadLimits {
  /** Epoch ms. */
  deadline: number;
  signal: AbortSignal;
}

/**
 * One file's thread. Requests run one after another in the order posted; the thread keeps what
 * earlier ones loaded (an opened PDF), and goes at `close`, at the deadline, or when the page is
 * cancelled, failing whatever is still pending.
 */
export class FileThread {
  /** None when the page was cancelled or out of time before the thread would have started. */
  private readonly worker: Worker | undefined;
  private readonly pending = new Map<number, { resolve: (value: JobResult) => void; reject: (err: Error) => void }>();
  private nextId = 0;
  private failure: Error | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly onAbort: () => void;

  /** `outOfTime` is the error a request still pending at the deadline fails with. */
  constructor(
    private readonly label: string,
    private readonly limits: ThreadLimits,
    outOfTime: () => Error,
  ) {
    this.timer = setTimeout(() => this.fail(outOfTime()), Math.max(0, limits.deadline - Date.now()));
    this.onAbort = () => this.fail(cancelled(limits.signal));
    if (limits.signal.aborted) this.fail(cancelled(limits.signal));
    else if (Date.now() >= limits.deadline) this.fail(outOfTime());
    if (this.failure) return;
    limits.signal.addEventListener('abort', this.onAbort, { once: true });
    this.worker = new Worker(THREAD_BOOT, { execArgv: [], resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB } });
    this.worker.on('message', ({ id, result, error }: { id: number; result?: JobResult; error?: FileFailure }) => {
      const request = this.pending.get(id);
      this.pending.delete(id);
      if (error) request?.reject(rebuilt(error));
      else request?.resolve(result!);
    });
    this.worker.once('error', (err) => this.fail(parseFailed(`The ${label} file could not be parsed: ${err.message}`, err)));
    this.worker.once('exit', (code) => this.fail(parseFailed(`The ${label} file could not be parsed (its thread exited with code ${code})`)));
  }

  request<J extends FileJob>(job: J, transfer: ArrayBuffer[] = []): Promise<JobResult<J>> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<JobResult<J>>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: JobResult) => void, reject });
      this.worker!.postMessage({ id, job }, transfer);
    });
  }

  close(): void {
    this.fail(parseFailed(`The ${this.label} file's thread was closed`));
  }

  private fail(err: Error): void {
    if (this.failure) return;
    this.failure = err;
    clearTimeout(this.timer);
    this.limits.signal.removeEventListener('abort', this.onAbort);
    void this.worker?.terminate();
    for (const { reject } of this.pending.values()) reject(err);
    this.pending.clear();
  }
}

/** An Office or table file as HTML, parsed on a thread of its own. */
export async function fileToHtmlIsolated(kind: HtmlFileKind, body: Buffer, contentType: string | undefined, limits: ThreadLimits): Promise<FileHtml> {
  const label = kind.toUpperCase();
  const thread = new FileThread(label, limits, () => parseFailed(`The ${label} file took longer than the request's time budget to parse`));
  try {
    // The bytes are copied once into the thread; the caller keeps its Buffer.
    return await thread.request({ type: 'html', kind, body: new Uint8Array(body), contentType });
  } finally {
    thread.close();
  }
}

/** An image cleaned for OCR (denoise.ts) on a thread of its own. */
export async function denoiseIsolated(image: Buffer, limits: ThreadLimits): Promise<Buffer> {
  const thread = new FileThread('image', limits, () => parseFailed("The image's OCR took longer than the request's time budget"));
  try {
    return Buffer.from(await thread.request({ type: 'denoise', image: new Uint8Array(image) }));
  } finally {
    thread.close();
  }
}

function cancelled(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : parseFailed('The parse was cancelled');
}

function rebuilt(failure: FileFailure): Error {
  return failure.code ? new NonRetryablePageError(failure.code as 'PARSE_FAILED', failure.message, { details: failure.details }) : parseFailed(failure.message);
}
