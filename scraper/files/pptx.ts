/**
 * Presentations (PPTX) to HTML: one section per slide, in the deck's order, with its text
 * paragraphs and its speaker notes. No Office library reads PPTX text well and stays maintained, so
 * this reads DrawingML itself: each `<a:p>` is a paragraph of `<a:t>` runs. XML goes through sax,
 * which knows no DTDs and so resolves no external entity.
 */
import sax from 'sax';
import { strFromU8, type Unzipped } from 'fflate';
import { escapeHtml } from './html-table.js';
import { parseFailed, readOfficeZip } from './office-zip.js';

export function pptxToHtml(body: Buffer): string {
  const files = readOfficeZip(body);
  const slides = slideOrder(files);
  if (!slides.length) throw parseFailed('The presentation has no slides');
  const sections = slides.map((path, i) => {
    const text = paragraphs(xml(files, path));
    const notesPath = related(files, path, 'notesSlide');
    const notes = notesPath ? paragraphs(xml(files, notesPath)).filter((p) => !/^\d+$/.test(p)) : [];
    return (
      `<section><h2>Slide ${i + 1}</h2>${text.map((p) => `<p>${escapeHtml(p)}</p>`).join('')}` +
      (notes.length ? `<h3>Notes</h3>${notes.map((p) => `<p>${escapeHtml(p)}</p>`).join('')}` : '') +
      `</section>`
    );
  });
  return `<html><body>${sections.join('')}</body></html>`;
}

/** Slides in presentation order: presentation.xml lists their relationship ids. */
function slideOrder(files: Unzipped): string[] {
  const ids: string[] = [];
  parseXml(xml(files, 'ppt/presentation.xml'), (node) => {
    if (node.name === 'p:sldId') ids.push(String(node.attributes['r:id'] ?? ''));
  });
  const targets = relationships(files, 'ppt/presentation.xml');
  return ids.map((id) => targets.get(id)).filter((path): path is string => !!path && path in files);
}

/** The first related part whose type ends with `kind` (e.g. a slide's notesSlide). */
function related(files: Unzipped, part: string, kind: string): string | undefined {
  for (const [, target] of relationships(files, part, kind)) if (target in files) return target;
  return undefined;
}

/** A part's relationships, id → resolved target path, optionally only those of a type. */
function relationships(files: Unzipped, part: string, kind?: string): Map<string, string> {
  const dir = part.slice(0, part.lastIndexOf('/'));
  const relsPath = `${dir}/_rels/${part.slice(dir.length + 1)}.rels`;
  const out = new Map<string, string>();
  if (!(relsPath in files)) return out;
  parseXml(xml(files, relsPath), (node) => {
    if (node.name !== 'Relationship') return;
    const type = String(node.attributes.Type ?? '');
    if (kind && !type.endsWith(`/${kind}`)) return;
    out.set(String(node.attributes.Id ?? ''), resolvePath(dir, String(node.attributes.Target ?? '')));
  });
  return out;
}

function resolvePath(dir: string, target: string): string {
  const parts = target.startsWith('/') ? [] : dir.split('/');
  for (const piece of target.replace(/^\//, '').split('/')) {
    if (piece === '..') parts.pop();
    else if (piece !== '.') parts.push(piece);
  }
  return parts.join('/');
}

function paragraphs(source: string): string[] {
  const out: string[] = [];
  let current: string | undefined;
  let inText = false;
  const parser = strictParser();
  parser.onopentag = (node) => {
    if (node.name === 'a:p') current = '';
    else if (node.name === 'a:t') inText = true;
    else if (node.name === 'a:br' && current !== undefined) current += '\n';
  };
  parser.ontext = (text) => {
    if (inText && current !== undefined) current += text;
  };
  parser.onclosetag = (name) => {
    if (name === 'a:t') inText = false;
    else if (name === 'a:p' && current !== undefined) {
      if (current.trim()) out.push(current.trim());
      current = undefined;
    }
  };
  run(parser, source);
  return out;
}

function parseXml(source: string, onOpen: (node: sax.Tag) => void): void {
  const parser = strictParser();
  parser.onopentag = (node) => onOpen(node as sax.Tag);
  run(parser, source);
}

function strictParser(): sax.SAXParser {
  return sax.parser(true, { trim: false, normalize: false });
}

function run(parser: sax.SAXParser, source: string): void {
  try {
    parser.write(source).close();
  } catch (err) {
    throw parseFailed(`The presentation could not be read: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`, err);
  }
}

function xml(files: Unzipped, path: string): string {
  const data = files[path];
  if (!data) throw parseFailed(`The presentation has no ${path}`);
  return strFromU8(data);
}
