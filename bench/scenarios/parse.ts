/**
 * File parsing, in this process, as the worker's activity runs it (scraper/files/convert.ts):
 * PDF text against the bare ceiling (pdf.js text extraction alone, unpdf's getTextContent over
 * every page), Office files per second over a generated corpus (each file on its own thread, as in
 * production), and OCR seconds per image with its character error rate on images whose text is
 * known (rendered by Chromium at several sizes and fonts, some rotated and blurred).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { getDocumentProxy } from 'unpdf';
import { convertFile, type FileContext } from '../../scraper/files/convert.js';
import { stopOcr } from '../../scraper/files/ocr.js';
import { transformHtml } from '../../scraper/html/transform.js';
import type { FetchedPage } from '../../scraper/types.js';
import { makeDocx, makePptx, makeXlsx } from '../../test/helpers/office-fixtures.js';
import { makeLongPdf } from '../../test/helpers/pdf-fixtures.js';
import type { BenchSettings, Scenario, ScenarioResult } from '../scenario.js';

const PDF_PAGES = 500;
const OFFICE_FILES_PER_KIND = 20;

const context = (): FileContext => ({
  parsers: [{ type: 'pdf' }, { type: 'image' }],
  transform: { onlyMainContent: false, removeBase64Images: true, want: { markdown: true, html: false, rawHtml: false, links: true, images: false } },
  html: async (html, url, options) => transformHtml(html, url, options),
  limits: { deadline: Date.now() + 600_000, signal: new AbortController().signal },
});
const page = (body: Buffer): FetchedPage => ({ engine: 'file', url: 'file://local/bench/file', statusCode: 200, headers: {}, contentType: '', body });

export const parseScenario: Scenario = {
  name: 'parse',
  description:
    'File parsing as the scrape activity runs it (scraper/files/convert.ts), in one process: a generated 500-page PDF through convertFile (text per page, joined into markdown) against the bare ceiling, pdf.js text extraction alone (unpdf getTextContent of every page); a generated corpus of DOCX (headings, paragraphs, a 40-row table), XLSX (3 sheets × 200 rows) and PPTX (12 slides with notes) files, each parsed on its own thread as in production; OCR seconds per image and character error rate on images Chromium renders with known text (two fonts at two sizes each; a rotated, blurred and speckled variant of each).',
  run,
};

async function run(settings: BenchSettings): Promise<ScenarioResult> {
  const pdf = await makeLongPdf(PDF_PAGES);
  const corpus = await officeCorpus();
  const corpusMb = corpus.reduce((n, f) => n + f.length, 0) / 1e6;
  const rows: ScenarioResult['rows'] = [];
  const ours: number[] = [];
  const ceiling: number[] = [];
  const cpuPerPage: number[] = [];
  const office: number[] = [];
  const loads: number[] = [];
  for (let r = 0; r < settings.runs; r++) {
    loads.push(loadavg()[0]!);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await convertFile(page(pdf), context());
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    ours.push(PDF_PAGES / seconds);
    cpuPerPage.push((cpu.user + cpu.system) / 1000 / PDF_PAGES);
    ceiling.push(PDF_PAGES / (await bareExtraction(pdf)));
    const t1 = performance.now();
    for (const file of corpus) await convertFile(page(file), context());
    office.push(corpus.length / ((performance.now() - t1) / 1000));
    settings.log(`  run ${r + 1}: PDF ${ours.at(-1)!.toFixed(0)} pages/s (ceiling ${ceiling.at(-1)!.toFixed(0)}), Office ${office.at(-1)!.toFixed(1)} files/s`);
  }
  rows.push(
    { metric: 'PDF text, convertFile', unit: 'pages/s', values: ours },
    { metric: 'PDF text, bare pdf.js', unit: 'pages/s', values: ceiling },
    { metric: 'PDF ours ÷ ceiling', unit: '×', values: ours.map((v, i) => v / ceiling[i]!), target: { text: '≥ 0.8', ok: (m) => m >= 0.8 } },
    { metric: 'PDF CPU per page', unit: 'ms', values: cpuPerPage },
    { metric: 'Office files', unit: 'files/s', values: office },
  );
  const notes = [
    `PDF: ${PDF_PAGES} pages, ${(pdf.length / 1e6).toFixed(2)} MB. Office corpus: ${corpus.length} files (${OFFICE_FILES_PER_KIND} each of DOCX, XLSX, PPTX), ${corpusMb.toFixed(2)} MB. 1-min load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`,
  ];
  const memory = await memoryFigures(pdf);
  rows.push(...memory.rows);
  notes.push(...memory.notes);
  const ocr = await ocrFigures(settings);
  if (ocr) {
    rows.push(...ocr.rows);
    notes.push(...ocr.notes);
  } else notes.push('OCR: not measured (no Chromium at CHROMIUM_PATH or /usr/bin/chromium to render the images).');
  await stopOcr();
  return { rows, notes };
}

/**
 * Peak resident memory of one parse in a fresh process (bench/parse-memory.ts): the 500-page PDF,
 * and a 10-page PDF made 50 MB by an attached file of random bytes, which pdf.js must load whole.
 */
async function memoryFigures(longPdf: Buffer): Promise<ScenarioResult> {
  const big = await makeFiftyMegabytePdf();
  const dir = mkdtempSync(join(tmpdir(), 'trawl-parse-mem-'));
  try {
    const measure = (name: string, data: Buffer) => {
      const path = join(dir, name);
      writeFileSync(path, data);
      const script = fileURLToPath(new URL('../parse-memory.ts', import.meta.url));
      const out = execFileSync(process.execPath, ['--import', 'tsx', script, path], { encoding: 'utf8' });
      return JSON.parse(out.trim().split('\n').pop()!) as { baselineMb: number; peakMb: number };
    };
    const long = measure('long.pdf', longPdf);
    const fifty = measure('fifty.pdf', big);
    return {
      rows: [
        { metric: 'peak RSS, 500-page PDF', unit: 'MB', values: [long.peakMb], target: { text: '≤ 512', ok: (m) => m <= 512 } },
        { metric: 'peak RSS, 50 MB PDF', unit: 'MB', values: [fifty.peakMb], target: { text: '≤ 512', ok: (m) => m <= 512 } },
      ],
      notes: [
        `Memory: each parse in a fresh Node process (bench/parse-memory.ts), whose baseline after loading the parsers is ${long.baselineMb.toFixed(0)} MB; the 50 MB PDF is ${(big.length / 1e6).toFixed(1)} MB (10 pages of text and an attached file of random bytes)`,
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function makeFiftyMegabytePdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < 10; i++) doc.addPage([612, 792]).drawText(`Page ${i + 1} of a large file`, { x: 72, y: 700, size: 14, font });
  await doc.attach(randomBytes(50 * 1024 * 1024), 'payload.bin', { mimeType: 'application/octet-stream' });
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

/** pdf.js alone: open, getTextContent of each page, nothing else. Seconds. */
async function bareExtraction(pdf: Buffer): Promise<number> {
  const t0 = performance.now();
  const doc = await getDocumentProxy(new Uint8Array(pdf), { verbosity: 0 });
  for (let n = 1; n <= doc.numPages; n++) {
    const p = await doc.getPage(n);
    await p.getTextContent();
    p.cleanup();
  }
  await doc.loadingTask.destroy();
  return (performance.now() - t0) / 1000;
}

async function officeCorpus(): Promise<Buffer[]> {
  const files: Buffer[] = [];
  for (let i = 0; i < OFFICE_FILES_PER_KIND; i++) {
    const table = [['Item', 'Quantity', 'Note'], ...Array.from({ length: 40 }, (_, r) => [`item ${i}-${r}`, String(r * 7), `note ${r}`])];
    files.push(makeDocx({ heading: `Report ${i}`, paragraphs: Array.from({ length: 30 }, (_, p) => `Paragraph ${p} of report ${i}, with some words to read.`), table }));
    const sheet = Array.from({ length: 200 }, (_, r) => [`row ${r}`, r, r * 1.5, `text ${i}`]);
    files.push(await makeXlsx({ First: sheet, Second: sheet, Third: sheet }));
    files.push(makePptx(Array.from({ length: 12 }, (_, s) => ({ texts: [`Slide ${s} of deck ${i}`, 'A point', 'Another point'], notes: `Notes for slide ${s}` }))));
  }
  return files;
}

const OCR_TEXTS = [
  'The quick brown fox jumps over the lazy dog 1234567890',
  'Invoice 4821 total due 1250 EUR by 30 November 2026',
  'Durable workflows keep every crawl page exactly once',
];
const OCR_STYLES = [
  { font: 'sans-serif', px: 18 },
  { font: 'sans-serif', px: 28 },
  { font: 'serif', px: 22 },
  { font: 'serif', px: 40 },
];

/**
 * Renders each text in each style, clean and distorted (rotated 1.5°, blurred, speckled), and reads it back.
 * The page hides its overflow: a rotated line overflowed, and Chromium drew scrollbars that OCR read as text.
 */
async function ocrFigures(settings: BenchSettings): Promise<ScenarioResult | undefined> {
  const chromium = [process.env.CHROMIUM_PATH, '/usr/bin/chromium'].find((p) => p && existsSync(p));
  if (!chromium) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'trawl-ocr-'));
  try {
    const cer = { clean: [] as number[], distorted: [] as number[] };
    const seconds: number[] = [];
    let n = 0;
    for (const text of OCR_TEXTS) {
      for (const style of OCR_STYLES) {
        for (const distorted of [false, true]) {
          const image = render(chromium, dir, n++, text, style, distorted);
          const t0 = performance.now();
          const out = await convertFile(page(image), context());
          seconds.push((performance.now() - t0) / 1000);
          (distorted ? cer.distorted : cer.clean).push(characterErrorRate(text, out?.transformed.markdown ?? ''));
        }
      }
    }
    settings.log(`  OCR: CER clean ${(mean(cer.clean) * 100).toFixed(2)} %, distorted ${(mean(cer.distorted) * 100).toFixed(2)} %`);
    return {
      rows: [
        { metric: 'OCR CER, clean renders', unit: '%', values: [mean(cer.clean) * 100], target: { text: '≤ 2', ok: (m) => m <= 2 } },
        { metric: 'OCR CER, distorted', unit: '%', values: [mean(cer.distorted) * 100], target: { text: '≤ 5', ok: (m) => m <= 5 } },
        // The first image includes loading the engine and the English model (about a second).
        { metric: 'OCR seconds per image (after the first)', unit: 's', values: [mean(seconds.slice(1))] },
      ],
      notes: [`OCR: ${n} images (${OCR_TEXTS.length} texts × ${OCR_STYLES.length} styles × clean/distorted), 900×120 px PNG screenshots; English model from @tesseract.js-data/eng, LSTM engine`],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function render(chromium: string, dir: string, n: number, text: string, style: { font: string; px: number }, distorted: boolean): Buffer {
  const filter = distorted ? 'filter: blur(0.6px); transform: rotate(1.5deg);' : '';
  const speckle = distorted
    ? Array.from({ length: 60 }, (_, i) => `<i style="position:absolute;left:${(i * 37) % 880}px;top:${(i * 53) % 110}px;width:2px;height:2px;background:#777"></i>`).join('')
    : '';
  const html = `<html><body style="margin:0;background:#fff;overflow:hidden"><div style="position:relative;padding:30px 20px;font-family:${style.font};font-size:${style.px}px;${filter}">${text}${speckle}</div></body></html>`;
  const source = join(dir, `${n}.html`);
  const shot = join(dir, `${n}.png`);
  writeFileSync(source, html);
  execFileSync(chromium, ['--headless', '--no-sandbox', '--disable-gpu', `--screenshot=${shot}`, '--window-size=900,120', `file://${source}`], { stdio: 'ignore' });
  return readFileSync(shot);
}

/** Levenshtein distance over characters, whitespace runs collapsed, divided by the reference's length. */
export function characterErrorRate(reference: string, hypothesis: string): number {
  const a = reference.replace(/\s+/g, ' ').trim();
  const b = hypothesis.replace(/\s+/g, ' ').trim();
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]! / Math.max(1, a.length);
}

function mean(values: number[]): number {
  return values.reduce((s, v) => s + v, 0) / Math.max(1, values.length);
}
