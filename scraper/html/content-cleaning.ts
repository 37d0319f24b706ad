/**
 * The last pass of the main-content scorer: what to leave out of the chosen content, as
 * Readability's `_prepArticle` and `_cleanConditionally` decide it (plus the boilerplate rules of
 * boilerplate.ts), from the statistics the scoring pass gathered.
 */
import { AD_TOKEN, MAX_TAIL_BLOCKS, MAX_TAIL_SHARE, MIN_TAIL_ARTICLE_TEXT, isAdOrLoadingLabel, isAnnouncedLinks, isArticleTail, isTagList, isBoilerplateInContent, isNamedBoilerplate } from './boilerplate.js';
import { BlockCopies, isRenditionOfPrevious, MAX_COPY_TEXT } from './block-copies.js';
import { PHRASING_TAGS, type Stats } from './content-stats.js';
import { isListOfOtherPosts } from './teaser-list.js';
import { classAndId, hasClassOrId, isTag, textContent, textOutside, type AnyNode, type Element, type ParentNode } from './dom.js';

/** What the scorer knows of the page, as the cleaning pass reads it. */
export interface ScoredPage {
  /** Readability's `cleanConditionally` flag: drop link-, form- or image-heavy blocks. */
  cleanConditionally: boolean;
  stats(el: Element): Stats | undefined;
  isDataTable(table: Element): boolean;
  classWeight(el: Element): number;
  keptChildren(el: ParentNode): Element[];
}

/** Removed from the chosen content outright, as Readability's `_prepArticle` does (plus `nav`). */
const CLEAN_TAGS = new Set([
  'footer', 'aside', 'nav', 'object', 'embed', 'iframe', 'input', 'textarea', 'select', 'button', 'link',
]);
const CONDITIONAL_TAGS = new Set(['form', 'fieldset', 'table', 'ul', 'div']);
const SHARE = /(\b|_)(share|sharedaddy)(\b|_)/i;
/** Wrappers the tail is looked for inside of, when the article's last block is one. */
const WRAPPERS = new Set(['div', 'section', 'article', 'main']);
/** What a "Related" heading or a "Don't miss" label announces: a list or a line of links, not a linked headline. */
const LINK_BLOCKS = new Set(['ul', 'ol', 'p', 'div']);
/** A block holding this share of the content's paragraphs is the article's wrapper. */
const MOST_PARAGRAPHS = 0.5;
const IN_CODE = 1;
const IN_DATA_TABLE = 2;
const IN_FIGURE = 4;
const IN_LIST = 8;
/** Lists and tables, their items, rows and cells, whatever their context. */
const ENUMERATED_TAGS: ReadonlySet<string> = new Set(['ul', 'ol', 'dl', 'li', 'dt', 'dd', 'table', 'tbody', 'thead', 'tr', 'td', 'th']);

/** Adds what to leave out of the chosen content to `skip`; returns the elements it added. */
export function cleanContent(roots: Element[], skip: Set<AnyNode>, page: ScoredPage): Element[] {
  return new Cleaner(page).clean(roots, skip);
}

class Cleaner {
  /** Text length of the chosen content before cleaning. */
  private contentText = 0;
  /** Paragraphs of the chosen content before cleaning. */
  private contentParagraphs = 0;
  private readonly copies = new BlockCopies();

  constructor(private readonly page: ScoredPage) {}

  clean(roots: Element[], skip: Set<AnyNode>): Element[] {
    const cleaned: Element[] = [];
    const rootSet = new Set(roots);
    for (const root of roots) {
      this.contentText += this.page.stats(root)?.text ?? 0;
      this.contentParagraphs += this.page.stats(root)?.p ?? 0;
    }
    const stack: Array<[Element, number]> = roots.map((r) => [r, 0]).reverse() as Array<[Element, number]>;
    while (stack.length > 0) {
      const [el, context] = stack.pop() as [Element, number];
      if (skip.has(el)) continue;
      if (this.shouldClean(el, rootSet.has(el), context)) {
        skip.add(el);
        cleaned.push(el);
        continue;
      }
      let childContext = context;
      if (el.name === 'pre' || el.name === 'code') childContext |= IN_CODE;
      if (el.name === 'figure') childContext |= IN_FIGURE;
      if (el.name === 'ul' || el.name === 'ol') childContext |= IN_LIST;
      if (el.name === 'table' && this.page.isDataTable(el)) childContext |= IN_DATA_TABLE;
      for (let i = el.children.length - 1; i >= 0; i--) {
        const child = el.children[i] as AnyNode;
        if (isTag(child)) stack.push([child, childContext]);
      }
    }
    const last = roots[roots.length - 1];
    return last && !skip.has(last) ? this.trimTail(last, skip, cleaned) : cleaned;
  }

  /**
   * Boilerplate gathers at the article's end (tags, share prompts, author lines, credits, links
   * to other stories): from the last block back, leave out each that looks like it, until a block
   * of prose; when that block is a wrapper, go on inside it.
   */
  private trimTail(root: Element, skip: Set<AnyNode>, cleaned: Element[]): Element[] {
    if (this.contentText < MIN_TAIL_ARTICLE_TEXT) return cleaned;
    const trimmed: Element[] = [];
    let budget = this.contentText * MAX_TAIL_SHARE;
    let parent: Element | undefined = root;
    while (parent) {
      const children: Element[] = this.page.keptChildren(parent).filter((child) => !skip.has(child));
      let i = children.length - 1;
      for (; i >= 0; i--) {
        const child = children[i] as Element;
        const stats = this.page.stats(child);
        if (!stats || stats.text === 0) continue;
        if (stats.hasPre || stats.hasDataTable || PHRASING_TAGS.has(child.name) || stats.text > budget) break;
        if (!isArticleTail(child, stats, () => textOutside(child, skip))) break;
        budget -= stats.text;
        skip.add(child);
        trimmed.push(child);
      }
      const prose: Element | undefined = children[i];
      parent = prose && WRAPPERS.has(prose.name) ? prose : undefined;
    }
    // Links to other pages come in lists of any length; only the run of plain short lines is capped.
    if (trimmed.filter((block) => (this.page.stats(block)?.linkDensity ?? 0) <= 0.5).length > MAX_TAIL_BLOCKS) {
      for (const block of trimmed) skip.delete(block);
      return cleaned;
    }
    if (trimmed.length === 0) return cleaned;
    // The caller counts cleaned elements as disjoint subtrees: a trimmed block takes its cleaned descendants' place.
    return [...cleaned.filter((el) => !trimmed.some((block) => contains(block, el))), ...trimmed];
  }

  private shouldClean(el: Element, isRoot: boolean, context: number): boolean {
    if (context & IN_CODE) return false;
    if (CLEAN_TAGS.has(el.name)) return true;
    const stats = this.page.stats(el);
    if (!stats) return false;
    if (!isRoot && hasClassOrId(el)) {
      const match = classAndId(el);
      if (AD_TOKEN.test(match) || (stats.text < 500 && SHARE.test(match))) return true;
      if (!stats.hasPre && !stats.hasDataTable && isNamedBoilerplate(match, stats, this.contentText)) return true;
    }
    if ((el.name === 'h1' || el.name === 'h2') && this.page.classWeight(el) < 0) return true;
    if (!isRoot && !stats.hasPre && !stats.hasDataTable && isListOfOtherPosts(el, (e) => this.page.stats(e))) return true;
    if (this.isCaptionOrRelated(el, stats, context)) return true;
    if (!isRoot && LINK_BLOCKS.has(el.name) && !stats.hasPre && !stats.hasDataTable && isAnnouncedLinks(el, stats)) return true;
    if (!isRoot && !stats.hasPre && !stats.hasDataTable && isTagList(el, stats)) return true;
    if (this.isCopy(el, stats, context)) return true;
    if (!this.page.cleanConditionally || !CONDITIONAL_TAGS.has(el.name)) return false;
    return this.removeConditionally(el, stats, context);
  }

  /** Innermost blocks only (a wrapper's text is its block's), outside code and data tables. */
  private isCopy(el: Element, stats: Stats, context: number): boolean {
    if (PHRASING_TAGS.has(el.name) || (context & (IN_CODE | IN_DATA_TABLE)) !== 0 || stats.text > MAX_COPY_TEXT) return false;
    if (el.children.some((child) => isTag(child) && !PHRASING_TAGS.has(child.name))) return false;
    return isRenditionOfPrevious(el) || this.copies.isCopy(textContent(el));
  }

  private isCaptionOrRelated(el: Element, stats: Stats, context: number): boolean {
    if (stats.hasPre || stats.hasDataTable) return false;
    const enumerated = (context & (IN_LIST | IN_DATA_TABLE)) !== 0 || ENUMERATED_TAGS.has(el.name);
    return isBoilerplateInContent(el, { text: stats.text, linkDensity: stats.linkDensity, enumerated }, () => textContent(el).trim());
  }

  /** Readability's `_cleanConditionally`, fed from the gathered statistics. */
  private removeConditionally(el: Element, stats: Stats, context: number): boolean {
    const inDataTable = (context & IN_DATA_TABLE) !== 0;
    const inFigure = (context & IN_FIGURE) !== 0;
    // A list kept whole was judged as a list: its items' links are what it lists (a link roundup).
    const linksListed = (context & IN_LIST) !== 0;
    if (el.name === 'table' && this.page.isDataTable(el)) return false;
    // Tables and code must survive: never drop a block that holds one.
    if (inDataTable || stats.hasDataTable || stats.hasPre) return false;
    // Most of the content's paragraphs: the article's own wrapper, whatever link lists and share
    // buttons sit beside them in it; those are judged on their own inside it.
    if (stats.p > 0 && stats.p >= this.contentParagraphs * MOST_PARAGRAPHS) return false;
    const weight = this.page.classWeight(el);
    if (weight < 0) return true;
    if (stats.commas >= 10) return false;
    const text = stats.text;
    let isList = el.name === 'ul' || el.name === 'ol';
    if (!isList && text > 0 && stats.listText / text > 0.9) isList = true;
    if (text > 0 && text < 40) {
      if (isAdOrLoadingLabel(textContent(el))) return true;
    }
    const { p, img, input, embed, linkDensity } = stats;
    const li = stats.li - 100;
    const headingDensity = text === 0 ? 0 : stats.headingText / text;
    const remove =
      (!inFigure && img > 1 && p / img < 0.5) ||
      (!isList && li > p) ||
      input > Math.floor(p / 3) ||
      (!isList && !inFigure && !linksListed && headingDensity < 0.9 && text < 25 && (img === 0 || img > 2) && linkDensity > 0) ||
      (!isList && !linksListed && weight < 25 && linkDensity > 0.2) ||
      (weight >= 25 && linkDensity > 0.5) ||
      // Readability counts only the embeds its `_clean` left (videos); ours are all gone already, so
      // only a block with little text besides them goes, never an article that holds a few.
      (embed > 0 && text < 75);
    if (remove && isList) {
      // A plain list of images (a gallery) stays.
      const items = this.page.keptChildren(el);
      const simple = items.every((item) => this.page.keptChildren(item).length <= 1);
      if (simple && img === items.length) return false;
    }
    return remove;
  }
}

function contains(ancestor: Element, node: AnyNode): boolean {
  for (let current = node.parent; current; current = current.parent) if (current === ancestor) return true;
  return false;
}
