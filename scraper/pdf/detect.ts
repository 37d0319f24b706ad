/**
 * Whether a response is a PDF. Decided by what the server says and what the bytes are, never by
 * the URL's extension: `/report` may serve a PDF and `/file.pdf` an HTML error page.
 */
const PDF_TYPES = new Set(['application/pdf', 'application/x-pdf']);
const MAGIC = Buffer.from('%PDF-', 'latin1');

export function isPdf(page: { contentType: string; body?: Buffer }): boolean {
  if (PDF_TYPES.has(page.contentType.toLowerCase())) return true;
  return page.body !== undefined && hasPdfMagic(page.body);
}

/** `%PDF-` at the start; readers tolerate leading whitespace, so it is skipped here too. */
function hasPdfMagic(body: Buffer): boolean {
  let start = 0;
  while (start < body.length && start < 64 && isWhitespace(body[start]!)) start++;
  return body.subarray(start, start + MAGIC.length).equals(MAGIC);
}

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d || byte === 0x0c;
}
