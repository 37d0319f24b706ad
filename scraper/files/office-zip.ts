/**
 * The zip container of Office files, read within limits before any Office library sees it. A zip
 * bomb (a few KB that inflate to gigabytes) is refused from its central directory's declared sizes;
 * a zip whose entries lie about their size cannot get past them either, because fflate inflates each
 * entry into a buffer of the declared size and no further. The libraries are then handed a zip we
 * wrote ourselves from those bounded entries (`repack`), never the uploaded one.
 */
import { unzipSync, zipSync, type Unzipped } from 'fflate';
import { NonRetryablePageError } from '../../lib/errors.js';

export interface ZipLimits {
  maxEntries: number;
  /** Sum of the entries' uncompressed sizes. */
  maxTotalBytes: number;
  /** Uncompressed over compressed size, checked once the total passes `ratioFloorBytes`. */
  maxRatio: number;
  ratioFloorBytes: number;
}

/**
 * Real spreadsheets compress 10–30×; a sheet of one repeated value may reach 100×. 200 MB of XML is
 * far past what the converters handle in a page's time budget anyway.
 */
export const OFFICE_ZIP_LIMITS: ZipLimits = {
  maxEntries: 10_000,
  maxTotalBytes: 200 * 1024 * 1024,
  maxRatio: 150,
  ratioFloorBytes: 10 * 1024 * 1024,
};

/** Entry names from the central directory, inflating nothing; [] when it is not a readable zip. */
export function listZipEntries(body: Buffer): string[] {
  const names: string[] = [];
  try {
    unzipSync(body, { filter: (file) => (names.push(file.name), false) });
  } catch {
    return [];
  }
  return names;
}

export function readOfficeZip(body: Buffer, limits: ZipLimits = OFFICE_ZIP_LIMITS): Unzipped {
  let entries = 0;
  let total = 0;
  try {
    unzipSync(body, {
      filter: (file) => {
        entries++;
        total += file.originalSize;
        return false;
      },
    });
  } catch (err) {
    throw parseFailed('The file is not a readable Office document (corrupt zip container)', err);
  }
  if (entries > limits.maxEntries) throw parseFailed(`The file has ${entries} zip entries, more than the ${limits.maxEntries} allowed`);
  if (total > limits.maxTotalBytes) {
    throw parseFailed(`The file would inflate to ${total} bytes, more than the ${limits.maxTotalBytes} allowed (a zip bomb?)`);
  }
  if (total > limits.ratioFloorBytes && total / body.length > limits.maxRatio) {
    throw parseFailed(`The file would inflate ${Math.round(total / body.length)}-fold, more than the ${limits.maxRatio}-fold allowed (a zip bomb?)`);
  }
  try {
    return unzipSync(body);
  } catch (err) {
    throw parseFailed('The file is not a readable Office document (corrupt or encrypted zip entries)', err);
  }
}

/** A fresh zip of bounded entries, stored without compression: the library's input costs no inflating. */
export function repack(files: Unzipped): Buffer {
  return Buffer.from(zipSync(files, { level: 0 }));
}

export function parseFailed(message: string, cause?: unknown): NonRetryablePageError {
  return new NonRetryablePageError('PARSE_FAILED', message, { cause });
}
