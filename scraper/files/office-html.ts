/** The table- and Office-file parsers, each to HTML for the HTML pipeline; run on a thread by isolated.ts. */
import { delimitedToHtml } from './delimited.js';
import { docxToHtml } from './docx.js';
import { pptxToHtml } from './pptx.js';
import type { FileKind } from './sniff.js';
import { xlsxToHtml } from './xlsx.js';

export type HtmlFileKind = Extract<FileKind, 'docx' | 'xlsx' | 'pptx' | 'csv' | 'tsv'>;

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
    case 'csv':
    case 'tsv':
      return delimitedToHtml(text(), kind === 'csv' ? ',' : '\t');
  }
}
