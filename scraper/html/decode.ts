/**
 * Bytes to text for fetched pages. The order follows the WHATWG encoding sniffing algorithm
 * (BOM, then the Content-Type charset, then the `<meta>` prescan), except that a page with no
 * signal at all is read as UTF-8 when its bytes are valid UTF-8: most such pages today are UTF-8,
 * and only legacy ones fall through to the WHATWG default, windows-1252.
 *
 * Decoding uses @exodus/bytes' spec-conformant TextDecoder (the one html-encoding-sniffer is built
 * on), not Node's: Node 20 decodes "windows-1252" as Latin-1, turning bytes 0x80-0x9F (curly
 * quotes, dashes, €) into control characters.
 */
import { TextDecoder } from '@exodus/bytes/encoding.js';
import sniffHTMLEncoding from 'html-encoding-sniffer';

const NO_SIGNAL = '';
const REPLACEMENT = 'replacement';

export function decodeBody(body: Buffer, contentTypeHeader: string | undefined): string {
  const encoding = sniffHTMLEncoding(body, {
    transportLayerEncodingLabel: charsetParameter(contentTypeHeader),
    defaultEncoding: NO_SIGNAL,
  });
  // "replacement" (labels such as iso-2022-kr) is how the standard blocks encodings it deems unsafe;
  // browsers show one U+FFFD, which helps no reader, so such a label counts as no signal.
  if (encoding !== NO_SIGNAL && encoding !== REPLACEMENT) return new TextDecoder(encoding).decode(body);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    return new TextDecoder('windows-1252').decode(body);
  }
}

function charsetParameter(contentType: string | undefined): string | undefined {
  const match = contentType?.match(/;\s*charset\s*=\s*("?)([^";,\s]+)\1/i);
  return match?.[2];
}
