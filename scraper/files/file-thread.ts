/**
 * A one-file thread (isolated.ts): runs the jobs posted to it, one after another, and posts each
 * result back. The thread exists only for this file, so terminating it is how a file past its time
 * budget is stopped. Each kind of job loads its libraries when it first runs: an Office file's
 * thread never loads pdf.js, a PDF's never loads mammoth.
 */
import { parentPort } from 'node:worker_threads';
import { TrawlError } from '../../lib/errors.js';
import type { FileHtml, HtmlFileKind } from './office-html.js';
import type { PageLayout } from '../pdf/layout.js';
import type { PdfInfo } from '../pdf/pdf-thread.js';

export type FileJob =
  | { type: 'html'; kind: HtmlFileKind; body: Uint8Array; contentType?: string }
  /** An image as a grey, median-filtered PNG for OCR (denoise.ts). */
  | { type: 'denoise'; image: Uint8Array }
  /** Opens the PDF the page jobs that follow read from. */
  | { type: 'open-pdf'; data: Uint8Array }
  /** One page of the opened PDF's text layer, as blocks. */
  | { type: 'page-text'; pageNumber: number }
  /** One page of the opened PDF as a PNG cleaned for OCR. */
  | { type: 'render'; pageNumber: number };

export type JobResult<J extends FileJob = FileJob> = J extends { type: 'html' }
  ? FileHtml
  : J extends { type: 'open-pdf' }
    ? PdfInfo
    : J extends { type: 'page-text' }
      ? PageLayout
      : Uint8Array;

export interface FileFailure {
  message: string;
  code?: string;
  details?: unknown;
}

let queue: Promise<unknown> = Promise.resolve();

parentPort?.on('message', ({ id, job }: { id: number; job: FileJob }) => {
  queue = queue.then(() =>
    run(job).then(
      (result) => parentPort!.postMessage({ id, result }, result instanceof Uint8Array ? [result.buffer as ArrayBuffer] : []),
      (err: unknown) => {
        const error: FileFailure =
          err instanceof TrawlError ? { message: err.message, code: err.code, details: err.details } : { message: err instanceof Error ? err.message : String(err) };
        parentPort!.postMessage({ id, error });
      },
    ),
  );
});

async function run(job: FileJob): Promise<JobResult> {
  switch (job.type) {
    case 'html': {
      const [{ fileToHtml }, { decodeBody }] = await Promise.all([import('./office-html.js'), import('../html/decode.js')]);
      const bytes = Buffer.from(job.body.buffer, job.body.byteOffset, job.body.byteLength);
      return fileToHtml(job.kind, bytes, () => decodeBody(bytes, job.contentType));
    }
    case 'denoise': {
      const { denoiseForOcr } = await import('./denoise.js');
      return new Uint8Array(await denoiseForOcr(Buffer.from(job.image.buffer, job.image.byteOffset, job.image.byteLength)));
    }
    case 'open-pdf': {
      const { openPdf } = await import('../pdf/pdf-thread.js');
      return openPdf(job.data);
    }
    case 'page-text': {
      const { pageText } = await import('../pdf/pdf-thread.js');
      return pageText(job.pageNumber);
    }
    case 'render': {
      const { renderPageForOcr } = await import('../pdf/pdf-thread.js');
      return renderPageForOcr(job.pageNumber);
    }
  }
}
