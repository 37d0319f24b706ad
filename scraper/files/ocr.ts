/**
 * OCR of raster images with tesseract.js (Tesseract's LSTM engine in WebAssembly), offline: the
 * engine comes from the `tesseract.js-core` package and the language data from
 * `@tesseract.js-data/<lang>` packages, read from node_modules; nothing is downloaded or cached at
 * run time. tesseract.js runs recognition on a worker thread of its own; one is kept per process
 * (loading the English model takes about a second) and serves one image at a time. A recognition
 * past the request's deadline terminates that thread, and the next image starts a fresh one.
 * Images come here cleaned (denoise.ts), off the worker's main thread (isolated.ts).
 */
import { createRequire } from 'node:module';
import { createWorker, OEM, type Worker } from 'tesseract.js';
import { parseFailed } from './office-zip.js';

const require = createRequire(import.meta.url);
/** The languages that ship: one npm package each (see README "Files"). */
const ENGLISH = require('@tesseract.js-data/eng') as { code: string; langPath: string; gzip: boolean };

export interface OcrLimits {
  deadline: number;
  signal: AbortSignal;
}

let engine: Promise<Worker> | undefined;
/** One recognition at a time per thread; the next waits for this one. */
let queue: Promise<unknown> = Promise.resolve();

function startEngine(): Promise<Worker> {
  return createWorker(ENGLISH.code, OEM.LSTM_ONLY, {
    langPath: ENGLISH.langPath,
    gzip: ENGLISH.gzip,
    // No cache directory: the data is read from the package every time a thread starts.
    cacheMethod: 'none',
    // Without a handler tesseract.js rethrows a failed job (an unreadable image) on its message
    // callback, an uncaught exception that would end the worker process; the job's promise is
    // rejected either way, and recognizeNow turns that into PARSE_FAILED.
    errorHandler: () => undefined,
  });
}

/** A paragraph Tesseract found: its text, its box in the image's pixels, its confidence (0–100). */
export interface OcrParagraph {
  text: string;
  bbox: { x0: number; y0: number; x1: number; y1: number };
  confidence: number;
}

export async function recognizeImage(image: Buffer, limits: OcrLimits): Promise<string> {
  return (await recognize(image, limits, false)).text;
}

/** The text and its paragraphs with their boxes (for a PDF's `blocks`). */
export function recognizeParagraphs(image: Buffer, limits: OcrLimits): Promise<{ text: string; paragraphs: OcrParagraph[] }> {
  return recognize(image, limits, true);
}

function recognize(image: Buffer, limits: OcrLimits, paragraphs: boolean): Promise<{ text: string; paragraphs: OcrParagraph[] }> {
  const run = queue.then(() => recognizeNow(image, limits, paragraphs));
  queue = run.catch(() => undefined);
  return run;
}

async function recognizeNow(image: Buffer, limits: OcrLimits, paragraphs: boolean): Promise<{ text: string; paragraphs: OcrParagraph[] }> {
  if (limits.signal.aborted || Date.now() >= limits.deadline) throw parseFailed("The image's OCR did not start before the request's deadline");
  engine ??= startEngine();
  const worker = await engine;
  let timer: NodeJS.Timeout | undefined;
  const stop = new Promise<never>((_, reject) => {
    const abort = () => reject(parseFailed("The image's OCR took longer than the request's time budget"));
    timer = setTimeout(abort, limits.deadline - Date.now());
    limits.signal.addEventListener('abort', abort, { once: true });
  });
  try {
    // The block tree (down to each symbol) is built only when its boxes are wanted.
    const { data } = await Promise.race([worker.recognize(image, {}, { text: true, blocks: paragraphs }), stop]);
    const found = (data.blocks ?? []).flatMap((block) => block.paragraphs.map(({ text, bbox, confidence }) => ({ text, bbox, confidence })));
    return { text: data.text.replace(/[ \t]+\n/g, '\n').trim(), paragraphs: found };
  } catch (err) {
    // A stopped or failed recognition leaves the thread in an unknown state: it goes, the next image starts another.
    engine = undefined;
    void worker.terminate().catch(() => undefined);
    if (err instanceof Error && 'code' in err) throw err;
    throw parseFailed(`The image could not be read: ${err instanceof Error ? err.message : String(err)}`, err);
  } finally {
    clearTimeout(timer);
  }
}

/** Ends the OCR thread, so a process (a test, the worker at shutdown) can exit. */
export async function stopOcr(): Promise<void> {
  const running = engine;
  engine = undefined;
  if (running) await (await running).terminate();
}
