/** CSV and TSV to one HTML table (papaparse: quoted fields, embedded newlines, a byte-order mark). */
import Papa from 'papaparse';
import { htmlTable } from './html-table.js';
import { parseFailed } from './office-zip.js';

/** Past this many cells the table is cut and the Document says so. */
export const MAX_TABLE_CELLS = 200_000;

export function delimitedToHtml(text: string, delimiter: ',' | '\t'): { html: string; truncated: boolean } {
  const parsed = Papa.parse<string[]>(text.replace(/^\ufeff/, ''), { delimiter, skipEmptyLines: 'greedy' });
  if (!parsed.data.length && parsed.errors.length) throw parseFailed(`The ${delimiter === ',' ? 'CSV' : 'TSV'} file could not be read: ${parsed.errors[0]!.message}`);
  const { rows, truncated } = capCells(parsed.data);
  return { html: `<html><body>${htmlTable(rows)}</body></html>`, truncated };
}

export function capCells(rows: string[][], maxCells = MAX_TABLE_CELLS): { rows: string[][]; truncated: boolean } {
  let cells = 0;
  for (let i = 0; i < rows.length; i++) {
    cells += rows[i]!.length;
    if (cells > maxCells) return { rows: rows.slice(0, i), truncated: true };
  }
  return { rows, truncated: false };
}
