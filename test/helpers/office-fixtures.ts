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

const ODF_NS =
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ' +
  'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" ' +
  'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" xmlns:xlink="http://www.w3.org/1999/xlink" ' +
  'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"';

/** An OpenDocument package (ODF 1.3 part 2): the `mimetype` entry first, then content.xml around `body`. */
function odf(kind: 'text' | 'spreadsheet' | 'presentation', body: string, extra: { prolog?: string; automaticStyles?: string } = {}): Buffer {
  const mimetype = `application/vnd.oasis.opendocument.${kind}`;
  return zip({
    mimetype,
    'META-INF/manifest.xml': `<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type="${mimetype}"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>`,
    'content.xml': `<?xml version="1.0" encoding="UTF-8"?>${extra.prolog ?? ''}<office:document-content ${ODF_NS}><office:automatic-styles>${extra.automaticStyles ?? ''}</office:automatic-styles><office:body><office:${kind}>${body}</office:${kind}></office:body></office:document-content>`,
  });
}

export interface OdtContent {
  heading: string;
  paragraphs: string[];
  /** Items of a numbered list, and of a bulleted one. */
  numbered?: string[];
  bullets?: string[];
  link?: { text: string; href: string };
  table?: string[][];
  prolog?: string;
  rawParagraph?: string;
}

export function makeOdt(content: OdtContent): Buffer {
  const p = (text: string) => `<text:p>${text}</text:p>`;
  const list = (style: string, items: string[]) => `<text:list text:style-name="${style}">${items.map((i) => `<text:list-item>${p(i)}</text:list-item>`).join('')}</text:list>`;
  const body =
    `<text:h text:outline-level="1">${content.heading}</text:h>` +
    content.paragraphs.map(p).join('') +
    (content.numbered ? list('L1', content.numbered) : '') +
    (content.bullets ? list('L2', content.bullets) : '') +
    (content.link ? p(`See <text:a xlink:type="simple" xlink:href="${content.link.href}">${content.link.text}</text:a> for more.`) : '') +
    (content.table
      ? `<table:table table:name="T1"><table:table-column table:number-columns-repeated="${content.table[0]!.length}"/>${content.table
          .map((row) => `<table:table-row>${row.map((cell) => `<table:table-cell office:value-type="string">${p(cell)}</table:table-cell>`).join('')}</table:table-row>`)
          .join('')}</table:table>`
      : '') +
    (content.rawParagraph ? p(content.rawParagraph) : '');
  const styles =
    '<text:list-style style:name="L1"><text:list-level-style-number text:level="1" style:num-format="1"/></text:list-style>' +
    '<text:list-style style:name="L2"><text:list-level-style-bullet text:level="1" text:bullet-char="•"/></text:list-style>';
  return odf('text', body, { prolog: content.prolog, automaticStyles: styles });
}

/**
 * Sheets as LibreOffice writes them: equal cells in a run and the unused tail of the sheet as one
 * element with a repeat count (a million empty rows, a thousand empty columns).
 */
export function makeOds(sheets: Record<string, (string | number)[][]>): Buffer {
  const cell = (v: string | number) =>
    typeof v === 'number'
      ? `<table:table-cell office:value-type="float" office:value="${v}"><text:p>${v}</text:p></table:table-cell>`
      : `<table:table-cell office:value-type="string"><text:p>${v}</text:p></table:table-cell>`;
  const body = Object.entries(sheets)
    .map(
      ([name, rows]) =>
        `<table:table table:name="${name}">${rows
          .map((row) => `<table:table-row>${row.map(cell).join('')}<table:table-cell table:number-columns-repeated="1020"/></table:table-row>`)
          .join('')}<table:table-row table:number-rows-repeated="1048570"><table:table-cell table:number-columns-repeated="1024"/></table:table-row></table:table>`,
    )
    .join('');
  return odf('spreadsheet', body);
}

export function makeOdp(slides: Slide[]): Buffer {
  const frame = (texts: string[]) => `<draw:frame><draw:text-box>${texts.map((t) => `<text:p>${t}</text:p>`).join('')}</draw:text-box></draw:frame>`;
  const body = slides
    .map(
      (slide, i) =>
        `<draw:page draw:name="page${i + 1}">${frame(slide.texts)}${slide.notes ? `<presentation:notes>${frame([slide.notes])}</presentation:notes>` : ''}</draw:page>`,
    )
    .join('');
  return odf('presentation', body);
}

/**
 * An EPUB 3 book (OCF: `mimetype`, META-INF/container.xml, a package document). The spine lists
 * the chapters in reading order, the reverse of their file names, so a test sees the spine win.
 */
export function makeEpub(title: string, chapters: { heading: string; text: string }[]): Buffer {
  const parts: Record<string, string> = {
    mimetype: 'application/epub+zip',
    'META-INF/container.xml': `<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`,
    'OEBPS/content.opf': `<?xml version="1.0" encoding="UTF-8"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">urn:uuid:1</dc:identifier><dc:title>${title}</dc:title></metadata><manifest>${chapters
      .map((_, i) => `<item id="c${i}" href="text/ch${chapters.length - i}.xhtml" media-type="application/xhtml+xml"/>`)
      .join('')}</manifest><spine>${chapters.map((_, i) => `<itemref idref="c${i}"/>`).join('')}</spine></package>`,
  };
  chapters.forEach((chapter, i) => {
    parts[`OEBPS/text/ch${chapters.length - i}.xhtml`] =
      `<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE html><html xmlns="http://www.w3.org/1999/xhtml"><head><title>${chapter.heading}</title></head><body><h2>${chapter.heading}</h2><p>${chapter.text}</p></body></html>`;
  });
  return zip(parts);
}

/**
 * An RTF document as Word writes one: font and colour tables, a heading with `\outlinelevel0`,
 * list items after their `\listtext` markers, a two-by-two table, a HYPERLINK field, and non-ASCII
 * text as `\'hh` (cp1252) and `\u` escapes.
 */
export function makeRtf(): Buffer {
  return Buffer.from(
    [
      '{\\rtf1\\ansi\\ansicpg1252\\deff0{\\fonttbl{\\f0 Calibri;}{\\f1 Symbol;}}{\\colortbl;\\red0\\green0\\blue0;}',
      '{\\*\\generator Writer;}{\\info{\\title Hidden title}}',
      '\\pard\\outlinelevel0\\b Annual review\\b0\\par',
      '\\pard Caf\\\'e9 sales rose \\u8364?5 million.\\par',
      '{\\listtext\\pard\\plain\\f1 \\\'b7\\tab}\\pard\\ls1 First bullet\\par',
      '{\\listtext\\pard\\plain\\f1 \\\'b7\\tab}\\pard\\ls1 Second bullet\\par',
      '{\\listtext\\pard\\plain 1.\\tab}\\pard\\ls2 Step one\\par',
      '\\pard\\intbl Region\\cell Total\\cell\\row',
      '\\pard\\intbl North\\cell 12\\cell\\row',
      '\\pard Visit {\\field{\\*\\fldinst {HYPERLINK "https://example.com/rtf"}}{\\fldrslt {\\ul example}}} today.\\par',
      '{\\header Page header text\\par}',
      '}',
    ].join('\n'),
    'latin1',
  );
}
