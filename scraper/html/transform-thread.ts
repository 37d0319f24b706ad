/**
 * A thread of the HTML conversion pool (transform-pool.ts): converts the pages posted to it, one
 * at a time, with the same code as the in-process path.
 */
import { parentPort } from 'node:worker_threads';
import type { TransformOptions } from '../types.js';
import { transformHtml } from './transform.js';

export interface TransformJob {
  id: number;
  html: string;
  url: string;
  options: TransformOptions;
}

parentPort?.on('message', ({ id, html, url, options }: TransformJob) => {
  try {
    parentPort!.postMessage({ id, page: transformHtml(html, url, options) });
  } catch (err) {
    parentPort!.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
});
