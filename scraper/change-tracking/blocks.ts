/**
 * A page's markdown as the blocks a reader sees change one at a time: headings, paragraphs, list
 * items, table rows and code blocks. Each block keeps its text as written and a normalised key
 * that two loads of the same block share: Unicode NFC, zero-width characters removed, whitespace
 * folded (code keeps its indentation and only loses trailing spaces).
 */

export type BlockKind = 'heading' | 'paragraph' | 'list-item' | 'table-row' | 'code';

export interface Block {
  kind: BlockKind;
  /** As written, without the line break that ends it. */
  text: string;
  /** What two versions of the page compare. */
  key: string;
}

const ZERO_WIDTH = /[\u200b-\u200d\u2060\ufeff]/g;
const FENCE = /^\s*(```|~~~)/;
const HEADING = /^\s{0,3}#{1,6}\s/;
const SETEXT_UNDERLINE = /^\s{0,3}(=+|-+)\s*$/;
const LIST_ITEM = /^\s*(?:[-*+]|\d{1,9}[.)])\s+/;
const TABLE_ROW = /^\s*\|.*\|\s*$/;
/** Matched on the line without its whitespace: with it, the pattern's spaces could backtrack quadratically. */
const TABLE_RULE = /^\|?:?-{3,}:?(?:\|:?-{3,}:?)*\|?$/;

function normalise(text: string, kind: BlockKind): string {
  const clean = text.normalize('NFC').replace(ZERO_WIDTH, '');
  if (kind === 'code') return clean.replace(/[ \t]+$/gm, '');
  return clean.replace(/\s+/g, ' ').trim();
}

function block(kind: BlockKind, text: string): Block {
  return { kind, text, key: `${kind}:${normalise(text, kind)}` };
}

/** The blocks of `markdown`, in order. Blank lines and table rules (`|---|`) are no blocks. */
export function splitBlocks(markdown: string): Block[] {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let paragraph: string[] = [];
  const endParagraph = () => {
    if (paragraph.length > 0) blocks.push(block('paragraph', paragraph.join('\n')));
    paragraph = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = FENCE.exec(line);
    if (fence) {
      endParagraph();
      const code = [line];
      for (i += 1; i < lines.length; i++) {
        code.push(lines[i]!);
        if (lines[i]!.trim().startsWith(fence[1]!)) break;
      }
      blocks.push(block('code', code.join('\n')));
      continue;
    }
    if (line.trim() === '' || TABLE_RULE.test(line.replace(/\s+/g, ''))) {
      endParagraph();
      continue;
    }
    if (SETEXT_UNDERLINE.test(line) && paragraph.length > 0) {
      blocks.push(block('heading', `${paragraph.join('\n')}\n${line}`));
      paragraph = [];
      continue;
    }
    const kind: BlockKind | undefined = HEADING.test(line) ? 'heading' : LIST_ITEM.test(line) ? 'list-item' : TABLE_ROW.test(line) ? 'table-row' : undefined;
    if (kind) {
      endParagraph();
      blocks.push(block(kind, line));
      continue;
    }
    // A line indented under a list item continues it.
    const last = blocks.at(-1);
    if (paragraph.length === 0 && last?.kind === 'list-item' && /^\s{2,}\S/.test(line)) {
      blocks[blocks.length - 1] = block('list-item', `${last.text}\n${line}`);
      continue;
    }
    paragraph.push(line);
  }
  endParagraph();
  return blocks;
}
