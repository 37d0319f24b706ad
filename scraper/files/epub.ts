/**
 * EPUB to HTML: the chapters in spine order, each a section holding its XHTML body, under the
 * book's title. META-INF/container.xml names the package document (OPF), whose manifest maps ids to
 * files and whose spine lists the reading order. The chapters are XHTML, so the HTML pipeline reads
 * them as it reads web pages (htmlparser2 knows no DTD, so no entity of theirs is resolved).
 */
import type { Unzipped } from 'fflate';
import { strFromU8 } from 'fflate';
import { escapeHtml } from './html-table.js';
import { parseFailed, readOfficeZip } from './office-zip.js';
import { attr, parseXml, resolvePath, zipText } from './xml.js';

const WHAT = 'The EPUB book';

export function epubToHtml(body: Buffer): string {
  const files = readOfficeZip(body);
  let opfPath = '';
  parseXml(
    zipText(files, 'META-INF/container.xml', WHAT),
    {
      open: (node) => {
        if (node.name.endsWith('rootfile') && !opfPath) opfPath = resolvePath('', attr(node, 'full-path'));
      },
    },
    WHAT,
  );
  if (!opfPath) throw parseFailed('The EPUB book names no package document in META-INF/container.xml');
  const { title, chapters } = readPackage(files, opfPath);
  if (!chapters.length) throw parseFailed('The EPUB book has no chapters in its spine');
  const ciphered = encrypted(files);
  if (chapters.some((path) => ciphered.has(path))) throw parseFailed('The EPUB book is encrypted (DRM); its chapters cannot be read');
  const sections = chapters.map((path) => `<section>${bodyOf(strFromU8(files[path]!))}</section>`);
  const head = title ? `<head><title>${escapeHtml(title)}</title></head>` : '';
  return `<html>${head}<body>${sections.join('')}</body></html>`;
}

/** The book's title and its chapters' paths, in spine order (each chapter once). */
function readPackage(files: Unzipped, opfPath: string): { title: string; chapters: string[] } {
  const dir = opfPath.includes('/') ? opfPath.slice(0, opfPath.lastIndexOf('/')) : '';
  const manifest = new Map<string, string>();
  const spine: string[] = [];
  let title = '';
  let inTitle = false;
  parseXml(
    zipText(files, opfPath, WHAT),
    {
      open: (node) => {
        const name = node.name.replace(/^[^:]+:/, '');
        if (name === 'item') manifest.set(attr(node, 'id'), resolvePath(dir, decodeHref(attr(node, 'href'))));
        else if (name === 'itemref') spine.push(attr(node, 'idref'));
        else if (name === 'title' && !title) inTitle = true;
      },
      text: (text) => {
        if (inTitle) title += text;
      },
      close: (name) => {
        if (name.replace(/^[^:]+:/, '') === 'title') inTitle = false;
      },
    },
    WHAT,
  );
  const chapters = [...new Set(spine.map((id) => manifest.get(id)).filter((path): path is string => !!path && path in files))];
  return { title: title.trim(), chapters };
}

/**
 * The parts META-INF/encryption.xml lists as ciphered. Fonts alone are often listed (font
 * obfuscation, harmless here); a chapter listed means DRM.
 */
function encrypted(files: Unzipped): Set<string> {
  const out = new Set<string>();
  if (!files['META-INF/encryption.xml']) return out;
  parseXml(
    zipText(files, 'META-INF/encryption.xml', WHAT),
    {
      open: (node) => {
        if (node.name.endsWith('CipherReference')) out.add(resolvePath('', decodeHref(attr(node, 'URI'))));
      },
    },
    WHAT,
  );
  return out;
}

function decodeHref(href: string): string {
  try {
    return decodeURIComponent(href.split('#')[0]!);
  } catch {
    return href;
  }
}

/** What is between `<body…>` and `</body>`, found by position (no pattern over untrusted text). */
function bodyOf(xhtml: string): string {
  const lower = xhtml.toLowerCase();
  const open = lower.indexOf('<body');
  const start = open === -1 ? 0 : lower.indexOf('>', open) + 1;
  const end = lower.lastIndexOf('</body>');
  return xhtml.slice(start, end > start ? end : undefined);
}
