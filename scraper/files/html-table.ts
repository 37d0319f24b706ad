/** Rows of cells as an HTML table whose first row is its header, for the HTML pipeline's GFM tables. */
export function htmlTable(rows: readonly (readonly string[])[]): string {
  if (!rows.length) return '';
  const width = Math.max(...rows.map((row) => row.length));
  const cells = (row: readonly string[], tag: 'th' | 'td') =>
    `<tr>${Array.from({ length: width }, (_, i) => `<${tag}>${escapeHtml(row[i] ?? '')}</${tag}>`).join('')}</tr>`;
  const [head, ...body] = rows;
  return `<table><thead>${cells(head!, 'th')}</thead><tbody>${body.map((row) => cells(row, 'td')).join('')}</tbody></table>`;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}
