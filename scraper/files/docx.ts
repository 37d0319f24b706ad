/**
 * Word documents (DOCX) to HTML with mammoth, which maps Word's styles to semantic elements
 * (headings, lists, tables, links, images as data: URIs); the HTML pipeline makes the markdown.
 * mammoth parses the XML with @xmldom/xmldom, which never resolves external entities.
 */
import mammoth from 'mammoth';
import { parseFailed, readOfficeZip, repack } from './office-zip.js';

export async function docxToHtml(body: Buffer): Promise<string> {
  const zip = repack(readOfficeZip(body));
  try {
    const { value } = await mammoth.convertToHtml({ buffer: zip });
    return `<html><body>${value}</body></html>`;
  } catch (err) {
    throw parseFailed(`The Word document could not be read: ${err instanceof Error ? err.message : String(err)}`, err);
  }
}
