/**
 * Office files built in the test from their XML parts (ECMA-376), so no binary fixture is checked
 * in and each test shows exactly what its file holds. XLSX comes from exceljs's writer.
 */
import ExcelJS from 'exceljs';
import { strToU8, zipSync, type Zippable } from 'fflate';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const A = 'http://schemas.openxmlformats.org/drawingml/2006/main';
const P = 'http://schemas.openxmlformats.org/presentationml/2006/main';
const PKG_RELS = 'http://schemas.openxmlformats.org/package/2006/relationships';

function zip(parts: Record<string, string>): Buffer {
  const files: Zippable = {};
  for (const [name, text] of Object.entries(parts)) files[name] = strToU8(text);
  return Buffer.from(zipSync(files));
}

function rels(entries: { id: string; type: string; target: string }[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${PKG_RELS}">${entries
    .map((e) => `<Relationship Id="${e.id}" Type="${R}/${e.type}" Target="${e.target}"/>`)
    .join('')}</Relationships>`;
}

export interface DocxContent {
  heading: string;
  paragraphs: string[];
  /** A table whose first row is its header. */
  table?: string[][];
  /** Raw XML placed before the body, e.g. a DOCTYPE declaring an external entity. */
  prolog?: string;
  /** Raw XML placed in a paragraph, e.g. an entity reference. */
  rawRun?: string;
}

export function makeDocx(content: DocxContent): Buffer {
  const run = (text: string) => `<w:r><w:t xml:space="preserve">${text}</w:t></w:r>`;
  const para = (text: string, style?: string) => `<w:p>${style ? `<w:pPr><w:pStyle w:val="${style}"/></w:pPr>` : ''}${run(text)}</w:p>`;
  const table = content.table
    ? `<w:tbl>${content.table.map((row) => `<w:tr>${row.map((cell) => `<w:tc>${para(cell)}</w:tc>`).join('')}</w:tr>`).join('')}</w:tbl>`
    : '';
  const raw = content.rawRun ? `<w:p><w:r><w:t>${content.rawRun}</w:t></w:r></w:p>` : '';
  const body = para(content.heading, 'Heading1') + content.paragraphs.map((p) => para(p)).join('') + table + raw;
  return zip({
    '[Content_Types].xml': `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
    '_rels/.rels': rels([{ id: 'rId1', type: 'officeDocument', target: 'word/document.xml' }]),
    'word/document.xml': `<?xml version="1.0" encoding="UTF-8"?>${content.prolog ?? ''}<w:document xmlns:w="${W}" xmlns:r="${R}"><w:body>${body}</w:body></w:document>`,
  });
}

export async function makeXlsx(sheets: Record<string, (string | number)[][]>): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  for (const [name, rows] of Object.entries(sheets)) workbook.addWorksheet(name).addRows(rows);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

export interface Slide {
  texts: string[];
  notes?: string;
}

export function makePptx(slides: Slide[]): Buffer {
  const paras = (texts: string[]) => texts.map((t) => `<a:p><a:r><a:t>${t}</a:t></a:r></a:p>`).join('');
  const shape = (texts: string[]) => `<p:sp><p:txBody><a:bodyPr/>${paras(texts)}</p:txBody></p:sp>`;
  const parts: Record<string, string> = {
    '[Content_Types].xml': `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/></Types>`,
    '_rels/.rels': rels([{ id: 'rId1', type: 'officeDocument', target: 'ppt/presentation.xml' }]),
    // Listed in reverse file order, so the test sees that the deck's order wins over file names.
    'ppt/presentation.xml': `<?xml version="1.0" encoding="UTF-8"?><p:presentation xmlns:p="${P}" xmlns:r="${R}"><p:sldIdLst>${slides
      .map((_, i) => `<p:sldId id="${256 + i}" r:id="rId${i + 1}"/>`)
      .join('')}</p:sldIdLst></p:presentation>`,
    'ppt/_rels/presentation.xml.rels': rels(slides.map((_, i) => ({ id: `rId${i + 1}`, type: 'slide', target: `slides/slide${slides.length - i}.xml` }))),
  };
  slides.forEach((slide, i) => {
    const n = slides.length - i;
    parts[`ppt/slides/slide${n}.xml`] =
      `<?xml version="1.0" encoding="UTF-8"?><p:sld xmlns:p="${P}" xmlns:a="${A}"><p:cSld><p:spTree>${shape(slide.texts)}</p:spTree></p:cSld></p:sld>`;
    if (slide.notes) {
      parts[`ppt/slides/_rels/slide${n}.xml.rels`] = rels([{ id: 'rId1', type: 'notesSlide', target: `../notesSlides/notesSlide${n}.xml` }]);
      parts[`ppt/notesSlides/notesSlide${n}.xml`] =
        `<?xml version="1.0" encoding="UTF-8"?><p:notes xmlns:p="${P}" xmlns:a="${A}"><p:cSld><p:spTree>${shape([slide.notes, String(n)])}</p:spTree></p:cSld></p:notes>`;
    }
  });
  return zip(parts);
}

/**
 * A zip whose one entry inflates to `inflatedBytes` of zeros: deflate shrinks runs of one byte about
 * 1000-fold, so 300 MB costs 300 KB. Named like a Word document so only its sizes give it away.
 */
export function makeZipBomb(inflatedBytes: number): Buffer {
  return Buffer.from(
    zipSync({
      '[Content_Types].xml': strToU8('<Types/>'),
      'word/document.xml': [new Uint8Array(inflatedBytes), { level: 9 }],
    }),
  );
}
