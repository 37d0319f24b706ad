/**
 * Spreadsheets (XLSX) to one HTML table per sheet, under a heading with the sheet's name, with
 * exceljs. Cells are read as the text Excel would show (formula results, not formulas; rich text
 * flattened; dates as ISO dates). exceljs parses XML with saxes, which resolves no external entity.
 */
import ExcelJS from 'exceljs';
import { capCells, MAX_TABLE_CELLS } from './delimited.js';
import { escapeHtml, htmlTable } from './html-table.js';
import { parseFailed, readOfficeZip, repack } from './office-zip.js';

export async function xlsxToHtml(body: Buffer): Promise<{ html: string; truncated: boolean }> {
  const zip = repack(readOfficeZip(body));
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(zip as unknown as ArrayBuffer);
  } catch (err) {
    throw parseFailed(`The spreadsheet could not be read: ${err instanceof Error ? err.message : String(err)}`, err);
  }
  let budget = MAX_TABLE_CELLS;
  let truncated = false;
  const sections: string[] = [];
  workbook.eachSheet((sheet) => {
    const rows: string[][] = [];
    sheet.eachRow({ includeEmpty: false }, (row) => {
      const cells: string[] = [];
      for (let c = 1; c <= row.cellCount; c++) cells.push(cellText(row.getCell(c)));
      rows.push(cells);
    });
    const capped = capCells(rows, budget);
    truncated ||= capped.truncated;
    budget -= capped.rows.reduce((n, row) => n + row.length, 0);
    sections.push(`<h2>${escapeHtml(sheet.name)}</h2>${htmlTable(capped.rows)}`);
  });
  return { html: `<html><body>${sections.join('')}</body></html>`, truncated };
}

function cellText(cell: ExcelJS.Cell): string {
  const value = cell.value;
  if (value instanceof Date) return value.toISOString().replace(/T00:00:00\.000Z$/, '');
  // cell.text renders formulas as their result, rich text and hyperlinks as their text.
  return cell.text ?? '';
}
