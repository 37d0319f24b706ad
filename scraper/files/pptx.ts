/**
 * Presentations (PPTX) to HTML: one section per slide, in the deck's order, with its text
 * paragraphs and its speaker notes. No Office library reads PPTX text well and stays maintained, so
 * this reads DrawingML itself (xml.ts): each `<a:p>` is a paragraph of `<a:t>` runs.
 */
import type sax from 'sax';
import type { Unzipped } from 'fflate';
import { escapeHtml } from './html-table.js';
import { parseFailed, readOfficeZip } from './office-zip.js';
import { attr, parseXml as parseWith, resolvePath, zipText } from './xml.js';

const WHAT = 'The presentation';

export function pptxToHtml(body: Buffer): string {
  const files = readOfficeZip(body);
  const slides = slideOrder(files);
  if (!slides.length) throw parseFailed('The presentation has no slides');
  const sections = slides.map((path, i) => {
    const text = paragraphs(xml(files, path));
    const notesPath = related(files, path, 'notesSlide');
    const notes = notesPath ? paragraphs(xml(files, notesPath)).filter((p) => !/^\d+$/.test(p)) : [];
    return slideHtml(i + 1, text, notes);
  });
  return `<html><body>${sections.join('')}</body></html>`;
}

/** A slide's section, as ODP's are written too (odf.ts), so both read the same in markdown. */
export function slideHtml(n: number, text: string[], notes: string[]): string {
  const paras = (lines: string[]) => lines.map((p) => `<p>${escapeHtml(p)}</p>`).join('');
  return `<section><h2>Slide ${n}</h2>${paras(text)}${notes.length ? `<h3>Notes</h3>${paras(notes)}` : ''}</section>`;
}

/** Slides in presentation order: presentation.xml lists their relationship ids. */
function slideOrder(files: Unzipped): string[] {
  const ids: string[] = [];
  parseXml(xml(files, 'ppt/presentation.xml'), (node) => {
    if (node.name === 'p:sldId') ids.push(attr(node, 'r:id'));
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
    if (kind && !attr(node, 'Type').endsWith(`/${kind}`)) return;
    out.set(attr(node, 'Id'), resolvePath(dir, attr(node, 'Target')));
  });
  return out;
}

function paragraphs(source: string): string[] {
  const out: string[] = [];
  let current: string | undefined;
  let inText = false;
  parseWith(
    source,
    {
      open: (node) => {
        if (node.name === 'a:p') current = '';
        else if (node.name === 'a:t') inText = true;
        else if (node.name === 'a:br' && current !== undefined) current += '\n';
      },
      text: (text) => {
        if (inText && current !== undefined) current += text;
      },
      close: (name) => {
        if (name === 'a:t') inText = false;
        else if (name === 'a:p' && current !== undefined) {
          if (current.trim()) out.push(current.trim());
          current = undefined;
        }
      },
    },
    WHAT,
  );
  return out;
}

function parseXml(source: string, onOpen: (node: sax.Tag) => void): void {
  parseWith(source, { open: onOpen }, WHAT);
}

function xml(files: Unzipped, path: string): string {
  return zipText(files, path, WHAT);
}
