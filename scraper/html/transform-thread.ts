/**
 * A thread of the HTML conversion pool (transform-pool.ts): converts the pages posted to it, one
 * at a time, with the same code as the in-process path.
 */
import { parentPort } from 'node:worker_threads';
import { TrawlError } from '../../lib/errors.js';
import type { TransformOptions } from '../types.js';
import { transformHtml } from './transform.js';

export interface TransformJob {
  id: number;
  html: string;
  url: string;
  options: TransformOptions;
}

/** A conversion's failure as it crosses back: our errors keep their code, so the caller's mistake stays a 4xx. */
export interface TransformFailure {
  message: string;
  code?: string;
  details?: unknown;
  retryable?: boolean;
}

parentPort?.on('message', ({ id, html, url, options }: TransformJob) => {
  try {
    parentPort!.postMessage({ id, page: transformHtml(html, url, options) });
  } catch (err) {
    const error: TransformFailure =
      err instanceof TrawlError
        ? { message: err.message, code: err.code, details: err.details, retryable: err.retryable }
        : { message: err instanceof Error ? err.message : String(err) };
    parentPort!.postMessage({ id, error });
  }
});
