/** Small PDFs with known text, built in the test with pdf-lib so no binary fixture is checked in. */
import { PDFDocument, StandardFonts } from 'pdf-lib';

export const THREE_PAGE_TEXTS = [
  'Aardvark opening page about durable crawls',
  'Bonobo middle page about Temporal workflows',
  'Capybara closing page about credits',
];

export async function makePdf(pageTexts: readonly string[], title?: string): Promise<Buffer> {
  const doc = await PDFDocument.create();
  if (title) doc.setTitle(title);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const text of pageTexts) {
    doc.addPage([612, 792]).drawText(text, { x: 72, y: 700, size: 14, font });
  }
  return Buffer.from(await doc.save());
}

/** A PDF of `count` pages, each naming its number. */
export function makeLongPdf(count: number): Promise<Buffer> {
  return makePdf(Array.from({ length: count }, (_, i) => `Page number ${i + 1}`));
}
