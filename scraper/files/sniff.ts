/**
 * What kind of file a body is, from its bytes: magic numbers for binary formats, the entry names of
 * a zip for Office files and the `mimetype` entry of OpenDocument and EPUB zips, `{\rtf` for RTF. Never from a file name or a declared type alone: an `.xlsx` may be an HTML
 * error page and `/report` may serve a PDF. Only among text files, where bytes cannot tell CSV from
 * prose, does the declared type (or the upload's extension) choose the text format.
 */
import { unzipSync } from 'fflate';
import { listZipEntries } from './office-zip.js';

export type FileKind =
  | 'pdf'
  | 'docx'
  | 'xlsx'
  | 'pptx'
  | 'odt'
  | 'ods'
  | 'odp'
  | 'epub'
  | 'rtf'
  | 'image'
  | 'html'
  | 'csv'
  | 'tsv'
  | 'json'
  | 'markdown'
  | 'text';

/** Declared hints: the Content-Type without parameters and, for uploads, the file name. */
export interface FileHints {
  contentType: string;
  filename?: string;
}

/** undefined: a binary format Trawl has no parser for (images, archives, executables). */
export function sniffFile(body: Buffer, hints: FileHints): FileKind | undefined {
  if (hasPdfMagic(body)) return 'pdf';
  if (hasZipMagic(body)) return officeKind(body);
  if (imageType(body)) return 'image';
  if (hasRtfMagic(body)) return 'rtf';
  if (looksBinary(body)) return undefined;
  return textKind(body, hints);
}

const PDF_MAGIC = Buffer.from('%PDF-', 'latin1');
const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

/** `%PDF-` at the start; readers tolerate leading whitespace, so it is skipped here too. */
export function hasPdfMagic(body: Buffer): boolean {
  let start = 0;
  while (start < body.length && start < 64 && isWhitespace(body[start]!)) start++;
  return body.subarray(start, start + PDF_MAGIC.length).equals(PDF_MAGIC);
}

/** Raster formats Tesseract's image reader decodes, by their signatures. */
const IMAGE_MAGIC: [string, (b: Buffer) => boolean][] = [
  ['image/png', (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))],
  ['image/jpeg', (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff],
  ['image/gif', (b) => b.subarray(0, 4).toString('latin1') === 'GIF8'],
  ['image/webp', (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP'],
  ['image/tiff', (b) => ['II*\u0000', 'MM\u0000*'].includes(b.subarray(0, 4).toString('latin1'))],
  ['image/bmp', (b) => b.subarray(0, 2).toString('latin1') === 'BM' && b.length > 26],
];

/** The image's media type by its signature; undefined when it is no image Trawl reads. */
export function imageType(body: Buffer): string | undefined {
  return IMAGE_MAGIC.find(([, test]) => test(body))?.[0];
}

export function hasZipMagic(body: Buffer): boolean {
  return body.subarray(0, 4).equals(ZIP_MAGIC);
}

/** `{\rtf` at the start (after a byte-order mark or whitespace, which readers tolerate). */
function hasRtfMagic(body: Buffer): boolean {
  return /^(\ufeff|\xef\xbb\xbf)?\s{0,16}\{\\rtf/.test(body.subarray(0, 32).toString('latin1'));
}

/** The `mimetype` entry's value for each OpenDocument and EPUB kind (ODF 1.3 part 2 §3.3, EPUB OCF §4.3). */
const PACKAGE_TYPES: Record<string, FileKind> = {
  'application/vnd.oasis.opendocument.text': 'odt',
  'application/vnd.oasis.opendocument.spreadsheet': 'ods',
  'application/vnd.oasis.opendocument.presentation': 'odp',
  'application/epub+zip': 'epub',
};

/**
 * OOXML by the part each kind must have (ECMA-376 part 2, the main part's name); OpenDocument and
 * EPUB by their `mimetype` entry, read only when it is small (a media type is under 100 bytes).
 */
function officeKind(body: Buffer): FileKind | undefined {
  const names = new Set(listZipEntries(body));
  if (names.has('word/document.xml')) return 'docx';
  if (names.has('xl/workbook.xml')) return 'xlsx';
  if (names.has('ppt/presentation.xml')) return 'pptx';
  if (!names.has('mimetype')) return undefined;
  try {
    const entry = unzipSync(body, { filter: (file) => file.name === 'mimetype' && file.originalSize <= 256 })['mimetype'];
    return entry ? PACKAGE_TYPES[Buffer.from(entry).toString('latin1').trim()] : undefined;
  } catch {
    return undefined;
  }
}

/** NUL bytes or control characters in the first KiB: not text in any encoding we decode. */
function looksBinary(body: Buffer): boolean {
  const head = body.subarray(0, 1024);
  // UTF-16 text has NULs; its byte order mark says so.
  if (head[0] === 0xff && head[1] === 0xfe) return false;
  if (head[0] === 0xfe && head[1] === 0xff) return false;
  for (const byte of head) {
    if (byte === 0 || (byte < 0x09) || (byte > 0x0d && byte < 0x20 && byte !== 0x1b)) return true;
  }
  return false;
}

const TEXT_TYPES: Record<string, FileKind> = {
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'text/csv': 'csv',
  'application/csv': 'csv',
  'text/tab-separated-values': 'tsv',
  'application/json': 'json',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
};
const TEXT_EXTENSIONS: Record<string, FileKind> = {
  html: 'html',
  htm: 'html',
  xhtml: 'html',
  csv: 'csv',
  tsv: 'tsv',
  tab: 'tsv',
  json: 'json',
  md: 'markdown',
  markdown: 'markdown',
};

function textKind(body: Buffer, hints: FileHints): FileKind {
  const declared = TEXT_TYPES[hints.contentType.toLowerCase()];
  if (declared) return declared;
  const extension = /\.([a-z0-9]+)$/i.exec(hints.filename ?? '')?.[1]?.toLowerCase();
  const named = extension ? TEXT_EXTENSIONS[extension] : undefined;
  if (named) return named;
  const first = body.subarray(0, 1024).toString('utf8').replace(/^\ufeff/, '').trimStart();
  if (/^<(!doctype html|html|head|body)\b/i.test(first)) return 'html';
  if (first.startsWith('{') || first.startsWith('[')) return 'json';
  return 'text';
}

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d || byte === 0x0c;
}
