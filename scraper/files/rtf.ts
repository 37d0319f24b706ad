/**
 * RTF to HTML: paragraphs, headings (Word writes `\outlinelevelN` on heading paragraphs), list
 * items (`\ls`; numbered when the list text Word writes before them is a number), tables (`\cell`,
 * `\row`) and links (HYPERLINK fields). The npm RTF readers are either unmaintained or render to a
 * DOM; the syntax is small enough to read here in one pass, in time linear in the file: groups,
 * control words and text, with the destinations a reader does not see (font and colour tables,
 * pictures, headers, field instructions) skipped.
 */
import { escapeHtml } from './html-table.js';
import { parseFailed } from './office-zip.js';

/** Deeper nesting than any editor writes; the group stack is this long at most. */
const MAX_DEPTH = 1_000;

/** Destinations whose text is not the document's (RTF 1.9.1, "Destinations"). */
const SKIPPED = new Set([
  'fonttbl', 'colortbl', 'stylesheet', 'info', 'pict', 'object', 'header', 'headerl', 'headerr', 'headerf', 'footer', 'footerl',
  'footerr', 'footerf', 'footnote', 'listtable', 'listoverridetable', 'rsidtbl', 'generator', 'themedata', 'colorschememapping',
  'latentstyles', 'datastore', 'xmlnstbl', 'filetbl', 'revtbl', 'nonshppict', 'pntxta', 'pntxtb', 'annotation', 'atnid', 'atnauthor',
  'bkmkstart', 'bkmkend', 'mmathPr', 'pgdsctbl', 'userprops', 'docvar',
]);

interface Group {
  /** Text and control words here are not the document's (a skipped destination). */
  skip: boolean;
  /** Characters to skip after a `\u` (the ANSI fallback), from `\ucN`. */
  uc: number;
  /** `\fldinst`: the text is the field's instruction, collected, not shown. */
  instruction: boolean;
  /** `\listtext` or `\pntext`: the text is the list item's marker. */
  marker: boolean;
  /** A `\fldrslt` shown as a link: closing the group closes the link. */
  link: boolean;
  /** Paragraph properties, which a group's end restores as RTF's do. */
  heading?: number;
  list: boolean;
  inTable: boolean;
}

/** Destinations read rather than skipped when marked `\*` (ignorable). */
const READ_DESTINATIONS = new Set(['fldinst', 'fldrslt', 'listtext', 'pntext']);

export function rtfToHtml(body: Buffer): string {
  const source = body.toString('latin1');
  if (!/^\s*\{\\rtf/.test(source.slice(0, 64))) throw parseFailed('The RTF file does not start with {\\rtf');
  let decoder = new TextDecoder('windows-1252');
  const out: string[] = [];
  const stack: Group[] = [];
  let group: Group = { skip: false, uc: 1, instruction: false, marker: false, link: false, list: false, inTable: false };
  let paragraph = '';
  let marker = '';
  let instruction = '';
  let bytes: number[] = [];
  let skipChars = 0;
  let starred = false;
  let cell = '';
  let row: string[] = [];
  let table: string[][] = [];
  let list: { tag: string; items: string[] } | undefined;

  const emit = (text: string) => {
    if (group.instruction) instruction += text;
    else if (group.marker) marker += text;
    else if (!group.skip) paragraph += escapeHtml(text);
  };
  const flushBytes = () => {
    if (!bytes.length) return;
    const text = decoder.decode(Uint8Array.from(bytes));
    bytes = [];
    emit(text);
  };
  const flushList = () => {
    if (!list) return;
    out.push(`<${list.tag}>${list.items.map((item) => `<li>${item}</li>`).join('')}</${list.tag}>`);
    list = undefined;
  };
  const flushTable = () => {
    if (row.length) table.push(row);
    row = [];
    if (!table.length) return;
    out.push(`<table>${table.map((cells) => `<tr>${cells.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('')}</table>`);
    table = [];
  };
  /** A `\par`: the paragraph goes into the open table cell, the open list, or the document. */
  const endParagraph = () => {
    flushBytes();
    const html = paragraph.trim();
    paragraph = '';
    if (group.inTable) {
      if (html) cell += (cell ? '<br>' : '') + html;
      return;
    }
    flushTable();
    if (group.list && html) {
      const tag = /^\s*\(?\w{1,4}[.)]/.test(marker) ? 'ol' : 'ul';
      if (list && list.tag !== tag) flushList();
      list ??= { tag, items: [] };
      list.items.push(html);
    } else {
      flushList();
      if (html) out.push(group.heading ? `<h${group.heading}>${html}</h${group.heading}>` : `<p>${html}</p>`);
    }
    marker = '';
  };
  const endCell = () => {
    flushList();
    flushBytes();
    const html = paragraph.trim();
    paragraph = '';
    if (html) cell += (cell ? '<br>' : '') + html;
    row.push(cell);
    cell = '';
  };

  let i = source.indexOf('{');
  while (i < source.length) {
    const ch = source[i]!;
    if (ch === '{') {
      flushBytes();
      if (stack.length >= MAX_DEPTH) throw parseFailed(`The RTF file nests groups more than ${MAX_DEPTH} deep`);
      stack.push(group);
      group = { ...group, link: false };
      i++;
    } else if (ch === '}') {
      flushBytes();
      if (group.link) paragraph += '</a>';
      group = stack.pop() ?? group;
      i++;
      if (!stack.length) break;
    } else if (ch === '\\') {
      const next = source[i + 1] ?? '';
      if (isLetter(next.charCodeAt(0))) {
        let j = i + 1;
        while (j < source.length && j - i <= 32 && isLetter(source.charCodeAt(j))) j++;
        const word = source.slice(i + 1, j);
        let k = j;
        if (source[k] === '-' || isDigit(source.charCodeAt(k))) {
          k++;
          while (k < source.length && k - j <= 10 && isDigit(source.charCodeAt(k))) k++;
        }
        const param = k > j ? Number(source.slice(j, k)) : undefined;
        if (source[k] === ' ') k++;
        i = k;
        if (word === 'bin') {
          // Binary data of `param` bytes, never text, wherever it is.
          i += Math.max(0, param ?? 0);
          continue;
        }
        if (word !== 'u') flushBytes();
        if (skipChars && word !== 'u') {
          skipChars--;
          continue;
        }
        if (starred && !READ_DESTINATIONS.has(word)) group.skip = true;
        starred = false;
        if (group.skip && !group.marker && !group.instruction) continue;
        controlWord(word, param);
      } else if (next === "'") {
        const byte = parseInt(source.slice(i + 2, i + 4), 16);
        i += 4;
        if (skipChars) skipChars--;
        else if (!Number.isNaN(byte)) bytes.push(byte);
      } else {
        flushBytes();
        i += 2;
        if (skipChars) {
          skipChars--;
          continue;
        }
        if (next === '*') starred = true;
        else if (next === '~') emit('\u00a0');
        else if (next === '_') emit('-');
        else if (next === '\\' || next === '{' || next === '}') emit(next);
        else if ((next === '\n' || next === '\r') && !group.skip) endParagraph();
      }
    } else if (ch === '\r' || ch === '\n') {
      i++;
    } else {
      flushBytes();
      let j = i;
      while (j < source.length && !'\\{}\r\n'.includes(source[j]!)) j++;
      let text = source.slice(i, j);
      const skipped = Math.min(skipChars, text.length);
      text = text.slice(skipped);
      skipChars -= skipped;
      if (text) emit(text);
      i = j;
    }
  }
  endParagraph();
  flushList();
  flushTable();
  return `<html><body>${out.join('')}</body></html>`;

  function controlWord(word: string, param: number | undefined): void {
    switch (word) {
      case 'par':
      case 'sect':
        return endParagraph();
      case 'pard':
        group.inTable = false;
        group.list = false;
        group.heading = undefined;
        return;
      case 'line':
        if (!group.skip) paragraph += '<br>';
        return;
      case 'tab':
        return emit('\t');
      case 'intbl':
        group.inTable = true;
        return;
      case 'cell':
      case 'nestcell':
        return endCell();
      case 'row':
      case 'nestrow':
        if (row.length) table.push(row);
        row = [];
        return;
      case 'outlinelevel':
        if (param !== undefined && param >= 0 && param <= 5) group.heading = param + 1;
        return;
      case 'ls':
        group.list = true;
        return;
      case 'ansicpg':
        decoder = codePage(param) ?? decoder;
        return;
      case 'uc':
        group.uc = Math.max(0, param ?? 1);
        return;
      case 'u':
        if (param !== undefined) emit(String.fromCharCode(param < 0 ? param + 65536 : param));
        skipChars = group.uc;
        return;
      case 'fldinst':
        group.skip = group.instruction = true;
        instruction = '';
        return;
      case 'fldrslt': {
        const url = /HYPERLINK\s+"([^"]{1,2048})"/.exec(instruction)?.[1];
        instruction = '';
        if (url && !group.skip) {
          paragraph += `<a href="${escapeHtml(url)}">`;
          group.link = true;
        }
        return;
      }
      case 'listtext':
      case 'pntext':
        group.skip = group.marker = true;
        marker = '';
        return;
      default:
        if (SKIPPED.has(word)) group.skip = true;
    }
  }
}

function isLetter(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** The decoder of a Windows code page (`\ansicpgN`), when the platform has one. */
function codePage(n: number | undefined): TextDecoder | undefined {
  if (n === undefined) return undefined;
  const label = { 932: 'shift_jis', 936: 'gbk', 949: 'euc-kr', 950: 'big5', 874: 'windows-874' }[n] ?? `windows-${n}`;
  try {
    return new TextDecoder(label);
  } catch {
    return undefined;
  }
}
