/**
 * A PDF page's text as blocks with their place on the page, for the page text and for Firecrawl's
 * `blocks` (`parsers: [{type: "pdf", blocks: true}]`). pdf.js gives text runs in content order,
 * each with its transform and size and a flag on the run that ends a line. Lines go into blocks
 * by their geometry (startsBlock) and blank lines; a block's box is the union of its runs' boxes.
 * A page read by OCR has Tesseract's paragraphs as its blocks.
 */
import type { OcrParagraph } from '../files/ocr.js';

/** [x0, y0, x1, y1], 0–1 of the page's width and height, from its top left corner. */
export type BlockBox = [number, number, number, number];

export interface PageBlock {
  content: string;
  bbox: BlockBox | null;
  /** Tesseract's confidence in the block's text, 0–1 (OCR only). */
  ocrConfidence?: number;
}

export interface PageLayout {
  /** The page's text: its blocks, a blank line between them. */
  text: string;
  blocks: PageBlock[];
  /** The page box in PDF points (pixels at 72 dpi), which the boxes are fractions of. */
  width: number;
  height: number;
  source: 'text-layer' | 'ocr';
}

/** The parts of a pdf.js text run this reads. */
export interface TextRun {
  str: string;
  transform: number[];
  width: number;
  height: number;
  hasEOL: boolean;
}

/** The parts of a pdf.js viewport (scale 1) this reads: it maps PDF space to the page's top-left pixels. */
export interface PageViewport {
  width: number;
  height: number;
  convertToViewportPoint(x: number, y: number): number[];
}

export function textLayerLayout(runs: readonly (TextRun | object)[], viewport: PageViewport): PageLayout {
  const lines: Line[] = [];
  let line: Line = { text: '', box: null, height: 0 };
  for (const run of runs) {
    if (!('str' in run)) continue;
    line.text += run.str;
    if (run.str.trim()) {
      const box = runBox(run, viewport);
      line.box = union(line.box, box);
      line.height = Math.max(line.height, box[3] - box[1]);
    }
    if (run.hasEOL) {
      lines.push(line);
      line = { text: '', box: null, height: 0 };
    }
  }
  lines.push(line);
  const blocks: PageBlock[] = [];
  let block: Line[] = [];
  const endBlock = () => {
    if (block.length) blocks.push({ content: block.map((l) => l.text).join('\n').trim(), bbox: block.reduce<BlockBox | null>((box, l) => (l.box ? union(box, l.box) : box), null) });
    block = [];
  };
  for (const { text, box, height } of lines) {
    // trimEnd, not a pattern: a run of a million spaces must cost a million steps, not their square.
    const trimmed = text.trimEnd();
    if (!trimmed.trim()) {
      endBlock();
      continue;
    }
    if (block.length && startsBlock(block.at(-1)!, box, height)) endBlock();
    block.push({ text: trimmed, box, height });
  }
  endBlock();
  return { text: blocks.map((b) => b.content).join('\n\n'), blocks, width: round(viewport.width, 2), height: round(viewport.height, 2), source: 'text-layer' };
}

interface Line {
  text: string;
  /** The union of its runs' boxes; null for a line of spaces. */
  box: BlockBox | null;
  /** Its tallest run, as a fraction of the page's height. */
  height: number;
}

/**
 * Whether a line starts a block of its own after `previous`: a gap larger than most of a line's
 * height (paragraph spacing, where line spacing leaves a fifth of one), a change of text size (a
 * heading and its body), or a jump back up the page (the next column).
 */
function startsBlock(previous: Line, box: BlockBox | null, height: number): boolean {
  if (!previous.box || !box) return false;
  const tallest = Math.max(previous.height, height);
  const gap = box[1] - previous.box[3];
  return gap > 0.8 * tallest || gap < -2 * tallest || Math.abs(height - previous.height) > 0.15 * tallest;
}

/**
 * A page read by OCR: its paragraphs as blocks, boxed in the rendered image's pixels (`image`) and
 * so in fractions of the page; without paragraphs (blocks not asked for), its text's paragraphs, unboxed.
 */
export function ocrLayout(
  text: string,
  viewport: Pick<PageViewport, 'width' | 'height'>,
  found?: { paragraphs: OcrParagraph[]; image: { width: number; height: number } },
): PageLayout {
  const blocks: PageBlock[] = found
    ? found.paragraphs
        .map((p) => ({
          content: p.text.trim(),
          bbox: [clamp(p.bbox.x0 / found.image.width), clamp(p.bbox.y0 / found.image.height), clamp(p.bbox.x1 / found.image.width), clamp(p.bbox.y1 / found.image.height)] as BlockBox,
          ocrConfidence: round(p.confidence / 100, 4),
        }))
        .filter((b) => b.content)
    : text
        .split(/\n{2,}/)
        .map((p) => p.trim())
        .filter(Boolean)
        .map((content) => ({ content, bbox: null }));
  return { text: blocks.map((b) => b.content).join('\n\n'), blocks, width: round(viewport.width, 2), height: round(viewport.height, 2), source: 'ocr' };
}

/** A run's box: its baseline origin and advance, up by its height, in page fractions. */
function runBox(run: TextRun, viewport: PageViewport): BlockBox {
  const [, , , , x = 0, y = 0] = run.transform;
  const [ax = 0, ay = 0] = viewport.convertToViewportPoint(x, y);
  const [bx = 0, by = 0] = viewport.convertToViewportPoint(x + run.width, y + run.height);
  const fx = (v: number) => clamp(v / viewport.width);
  const fy = (v: number) => clamp(v / viewport.height);
  return [fx(Math.min(ax, bx)), fy(Math.min(ay, by)), fx(Math.max(ax, bx)), fy(Math.max(ay, by))];
}

function union(a: BlockBox | null, b: BlockBox): BlockBox {
  if (!a) return b;
  return [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[2], b[2]), Math.max(a[3], b[3])];
}

function clamp(v: number): number {
  return Number.isFinite(v) ? round(Math.min(1, Math.max(0, v)), 4) : 0;
}

function round(v: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}
