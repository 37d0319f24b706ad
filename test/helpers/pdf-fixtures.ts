/** Small PDFs with known text, built in the test with pdf-lib so no binary fixture is checked in. */
import { PDFDocument, PDFHexString, PDFName, StandardFonts, type PDFDict } from 'pdf-lib';

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

/**
 * A one-page PDF with no text layer whose page takes minutes to draw: a form XObject that draws the
 * one below it ten times, `levels` deep, so the page fills 10^levels squares (10^5 took 50 s to
 * render here). A few KB; OCR in mode `auto` has to render it.
 */
export async function makeDrawingBombPdf(levels: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([200, 200]);
  const ctx = doc.context;
  const form = (ops: string, resources?: PDFDict) =>
    ctx.register(ctx.flateStream(ops, { Type: 'XObject', Subtype: 'Form', BBox: [0, 0, 200, 200], ...(resources && { Resources: resources }) }));
  let below = form('0 0 1 1 re f');
  for (let level = 1; level <= levels; level++) below = form(Array.from({ length: 10 }, () => 'q /X Do Q').join('\n'), ctx.obj({ XObject: { X: below } }));
  page.node.set(PDFName.of('Contents'), ctx.register(ctx.flateStream('q /X Do Q')));
  page.node.set(PDFName.of('Resources'), ctx.obj({ XObject: { X: below } }));
  return Buffer.from(await doc.save());
}

/**
 * A one-page PDF whose text layer takes pdf.js minutes to read: a form XObject that shows the one
 * below it ten times, `levels` deep, the lowest showing a word, so the page's text is 10^levels
 * runs. A few KB, and an ordinary text layer at the top, so mode `auto` never renders it.
 */
export async function makeTextBombPdf(levels: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([200, 200]);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const ctx = doc.context;
  const form = (ops: string, resources: PDFDict) =>
    ctx.register(ctx.flateStream(ops, { Type: 'XObject', Subtype: 'Form', BBox: [0, 0, 200, 200], Resources: resources }));
  let below = form('BT /F 12 Tf 10 10 Td (word) Tj ET', ctx.obj({ Font: { F: font.ref } }));
  for (let level = 1; level <= levels; level++) below = form(Array.from({ length: 10 }, () => 'q /X Do Q').join('\n'), ctx.obj({ XObject: { X: below } }));
  page.node.set(PDFName.of('Contents'), ctx.register(ctx.flateStream('BT /F 12 Tf 10 180 Td (Title) Tj ET q /X Do Q')));
  page.node.set(PDFName.of('Resources'), ctx.obj({ Font: { F: font.ref }, XObject: { X: below } }));
  return Buffer.from(await doc.save());
}

/**
 * A PDF that needs a password to open: the standard security handler (RC4, 40-bit) in its trailer,
 * with an owner and user key no empty password matches.
 */
export async function makePasswordPdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.addPage([200, 200]);
  const ctx = doc.context;
  const key = PDFHexString.of('ab'.repeat(32));
  ctx.trailerInfo.Encrypt = ctx.register(ctx.obj({ Filter: 'Standard', V: 1, R: 2, Length: 40, P: -4, O: key, U: key }));
  ctx.trailerInfo.ID = ctx.obj([PDFHexString.of('01'.repeat(16)), PDFHexString.of('01'.repeat(16))]);
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}
