/** The table, Office, OpenDocument, EPUB and RTF parsers, each to HTML for the HTML pipeline; run on a thread by isolated.ts. */
import { delimitedToHtml } from './delimited.js';
import { docxToHtml } from './docx.js';
import { epubToHtml } from './epub.js';
import { odpToHtml, odsToHtml, odtToHtml } from './odf.js';
import { pptxToHtml } from './pptx.js';
import { rtfToHtml } from './rtf.js';
import type { FileKind } from './sniff.js';
import { xlsxToHtml } from './xlsx.js';

export type HtmlFileKind = Extract<FileKind, 'docx' | 'xlsx' | 'pptx' | 'odt' | 'ods' | 'odp' | 'epub' | 'rtf' | 'csv' | 'tsv'>;

export interface FileHtml {
  html: string;
  /** A table was cut at MAX_TABLE_CELLS. */
  truncated: boolean;
}

export async function fileToHtml(kind: HtmlFileKind, body: Buffer, text: () => string): Promise<FileHtml> {
  switch (kind) {
    case 'docx':
      return { html: await docxToHtml(body), truncated: false };
    case 'xlsx':
      return xlsxToHtml(body);
    case 'pptx':
      return { html: pptxToHtml(body), truncated: false };
    case 'odt':
      return { html: odtToHtml(body), truncated: false };
    case 'ods':
      return odsToHtml(body);
    case 'odp':
      return { html: odpToHtml(body), truncated: false };
    case 'epub':
      return { html: epubToHtml(body), truncated: false };
    case 'rtf':
      return { html: rtfToHtml(body), truncated: false };
    case 'csv':
    case 'tsv':
      return delimitedToHtml(text(), kind === 'csv' ? ',' : '\t');
  }
}
