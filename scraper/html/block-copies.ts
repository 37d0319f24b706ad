/**
 * Copies of a block the page shows by script: a caption in full and again cut short behind a
 * "… more" toggle, or the same caption again in a gallery's control panel. A reader sees one; the
 * markup holds them all. The first full copy stays; a later block that ends in such a toggle or
 * an ellipsis, and whose words are an earlier block's or the start of them, is left out; so is a
 * block right after its twin, named otherwise, with the same words (`caption-full` and
 * `caption-truncated` when the caption was short enough to need no cut).
 */

import { isTag, textContent, type Element } from './dom.js';

/** Shorter blocks repeat by nature (a heading, a label, a cell); these are sentences. */
const MIN_COPY_TEXT = 80;
/** Longer, a block is a section of the article rather than a caption or a standfirst shown twice. */
export const MAX_COPY_TEXT = 1000;
/** The toggle a copy ends with, and the ellipsis of one cut short. */
const TOGGLE_END = /\s*(?:(?:\.\.\.|…)\s*)?(?:(?:read|show|see) )?(?:more|less)$/iu;
const ELLIPSIS_END = /\s*(?:\.\.\.|…)$/u;

export class BlockCopies {
  private readonly seen = new Set<string>();
  private readonly shown: string[] = [];

  /**
   * `text` is the block's text content; true when it ends in a toggle or an ellipsis and an
   * earlier block showed its words already. Blocks without one never count as copies: an article
   * may well say the same thing twice.
   */
  isCopy(text: string): boolean {
    const words = normalized(text);
    const whole = words.replace(TOGGLE_END, '');
    const cut = whole.replace(ELLIPSIS_END, '');
    if (cut.length < MIN_COPY_TEXT) return false;
    if (cut !== words && (this.seen.has(whole) || this.shown.some((earlier) => earlier.startsWith(cut)))) return true;
    this.seen.add(whole);
    this.shown.push(whole);
    return false;
  }
}

/** `el` says what the block just before it says, under another name: two renditions of one block. */
export function isRenditionOfPrevious(el: Element): boolean {
  const name = el.attribs.class;
  if (!name) return false;
  let previous = el.prev;
  while (previous && !isTag(previous)) previous = previous.prev;
  if (!previous || !isTag(previous) || !previous.attribs.class || previous.attribs.class === name || previous.name !== el.name) return false;
  const words = normalized(textContent(el));
  return words.length >= MIN_COPY_TEXT && normalized(textContent(previous)) === words;
}

function normalized(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
