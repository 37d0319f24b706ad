/**
 * HTML conversion on worker threads. Parsing, main-content selection and markdown are most of a
 * static page's CPU, all of it on the main thread otherwise, where the worker also runs fetches,
 * SQL and the Temporal SDK: on a 2-core machine the worker's one thread was its limit. The
 * conversion is a pure function of (html, url, options), so it moves across a thread boundary
 * with nothing but copies of a string in and a TransformedPage out.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { TransformOptions, TransformedPage } from '../types.js';
import { NonRetryablePageError, PageError, type ErrorCode } from '../../lib/errors.js';
import type { TransformFailure, TransformJob } from './transform-thread.js';

/** Converts HTML to the content part of a Document: transformHtml's signature, asynchronous. */
export type HtmlTransform = (html: string, url: string, options: TransformOptions) => Promise<TransformedPage> | TransformedPage;

export interface TransformPool {
  transform(html: string, url: string, options: TransformOptions): Promise<TransformedPage>;
  close(): Promise<void>;
}

/** Threads when none are configured: all cores but the one the main thread keeps busy. */
export function defaultTransformThreads(): number {
  return Math.max(1, availableParallelism() - 1);
}

interface Pending {
  resolve: (page: TransformedPage) => void;
  reject: (err: Error) => void;
}

interface PoolThread {
  worker: Worker;
  pending: Map<number, Pending>;
}

/** From sources, a boot file registers tsx in the thread first; compiled (dist/), the thread's own module. */
const THREAD_BOOT = import.meta.url.endsWith('.ts')
  ? new URL('./transform-thread-boot.mjs', import.meta.url)
  : new URL('./transform-thread.js', import.meta.url);

export interface TransformPoolOptions {
  /**
   * Each thread's heap limit: a page whose tree outgrows it ends that thread alone (its pages
   * fail, and are retried like any failed page), not the worker with every page it runs.
   * @default 1024
   */
  maxHeapMb?: number;
}

/** The error the thread threw, as the calling thread would have seen it. */
function rebuilt(failure: TransformFailure): Error {
  if (failure.code === undefined) return new Error(`HTML conversion failed: ${failure.message}`);
  const ErrorClass = failure.retryable ? PageError : NonRetryablePageError;
  return new ErrorClass(failure.code as ErrorCode, failure.message, { details: failure.details });
}

export function createTransformPool(threads: number, options: TransformPoolOptions = {}): TransformPool {
  const resourceLimits = { maxOldGenerationSizeMb: options.maxHeapMb ?? 1024 };
  let nextId = 0;
  let closing = false;
  const pool: PoolThread[] = [];

  const start = (): PoolThread => {
    const thread: PoolThread = { worker: new Worker(THREAD_BOOT, { execArgv: [], resourceLimits }), pending: new Map() };
    thread.worker.on('message', (msg: { id: number; page?: TransformedPage; error?: TransformFailure }) => {
      const job = thread.pending.get(msg.id);
      if (!job) return;
      thread.pending.delete(msg.id);
      if (msg.page) job.resolve(msg.page);
      else job.reject(rebuilt(msg.error!));
    });
    // A thread that dies (out of its heap, say) fails its pages and is replaced: the pool never runs short.
    thread.worker.on('error', (err) => fail(thread, err));
    thread.worker.on('exit', (code) => fail(thread, new Error(`HTML conversion thread exited with code ${code}`)));
    return thread;
  };
  const fail = (thread: PoolThread, err: Error) => {
    for (const job of thread.pending.values()) job.reject(err);
    thread.pending.clear();
    const at = pool.indexOf(thread);
    if (at < 0) return;
    if (closing) pool.splice(at, 1);
    else pool[at] = start();
  };
  for (let i = 0; i < threads; i++) pool.push(start());

  return {
    transform(html, url, options) {
      // The thread with the fewest pages queued: pages differ in size, so round-robin would queue behind a big one.
      const thread = pool.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
      const id = nextId++;
      return new Promise<TransformedPage>((resolve, reject) => {
        thread.pending.set(id, { resolve, reject });
        thread.worker.postMessage({ id, html, url, options } satisfies TransformJob);
      });
    },
    async close() {
      closing = true;
      await Promise.all(pool.map((thread) => thread.worker.terminate()));
    },
  };
}
