/**
 * A Readability-class main-content scorer: the algorithm of Mozilla's Readability.js (paragraph
 * scores propagated to ancestors, class/id weights, link density, sibling merging, conditional
 * cleaning) re-implemented over the shared domhandler tree.
 *
 * Why not Readability itself: it needs a full DOM, and on linkedom it costs about as much as
 * turndown on the whole page, so the pipeline could never beat plain turndown. This version makes
 * one pass that gathers per-element statistics bottom-up, then decides from those numbers.
 *
 * It never mutates the tree. It returns the chosen subtrees plus the nodes to leave out of them,
 * so the caller can fall back to another selection without parsing again.
 */
import { AD_TOKEN } from './boilerplate.js';
import { isSchemaComment } from './comment-blocks.js';
import { isListOfOtherPosts } from './teaser-list.js';
import { postUnderTitle, titleHeading } from './title-anchor.js';
import { cleanContent } from './content-cleaning.js';
import { addText, computeIsDataTable, containsTag, newFrame, PHRASING_TAGS, type Frame, type Stats } from './content-stats.js';
import {
  classAndId,
  hasClassOrId,
  isElement,
  isTag,
  isText,
  textContent,
  type AnyNode,
  type Element,
  type ParentNode,
} from './dom.js';

export interface ScoringFlags {
  /** Drop elements whose class/id/role say they are navigation, comments, sidebars... */
  stripUnlikely: boolean;
  /** Let positive/negative class and id names move scores. */
  weightClasses: boolean;
  /** Drop link-heavy, form-heavy or image-heavy blocks inside the chosen content. */
  cleanConditionally: boolean;
}

export interface ScoredContent {
  /** Top-level pieces of the main content, in document order. */
  roots: Element[];
  /** Nodes inside `roots` to leave out. Includes the `skip` set passed in. */
  skip: Set<AnyNode>;
  /** Visible characters (`visibleTextLength`) of the content: `roots` less `skip`. */
  length: number;
  /** Visible characters of the chosen roots before the cleaning pass left parts of them out. */
  chosenLength: number;
  /** Share of the chosen roots' text that is link text. */
  linkDensity: number;
  /** Visible characters of the page the scorer chose from: the root less the `skip` passed in and what it dropped. */
  pageLength: number;
  /** The pick is the post under the title heading, chosen over a block apart from it. */
  underTitle: boolean;
}

const UNLIKELY =
  /-ad-|ai2html|banner|breadcrumbs|combx|comment|community|cover-wrap|disqus|extra|footer|gdpr|header|legends|menu|related|remark|replies|rss|shoutbox|sidebar|skyscraper|social|sponsor|supplemental|ad-break|agegate|pagination|pager|popup|yom-remote/i;
const MAYBE_CANDIDATE = /and|article|body|column|content|main|mathjax|shadow/i;
const POSITIVE = /article|body|content|entry|hentry|h-entry|main|page|pagination|post|text|blog|story/i;
const NEGATIVE =
  /-ad-|hidden|^hid$| hid$| hid |^hid |banner|combx|comment|com-|contact|footer|gdpr|masthead|media|meta|outbrain|promo|related|scroll|share|shoutbox|sidebar|skyscraper|sponsor|shopping|tags|widget/i;
const UNLIKELY_ROLES = new Set([
  'menu',
  'menubar',
  'complementary',
  'navigation',
  'alert',
  'alertdialog',
  'dialog',
  // Not in Readability: landmark roles for the site header and footer are as telling as `<nav>`.
  'banner',
  'contentinfo',
]);
/** Semantic page chrome, dropped even when retrying without `stripUnlikely` so a retry cannot pick a footer. */
const CHROME_TAGS = new Set(['nav', 'footer', 'aside']);
const TABLE_OR_CODE = new Set(['table', 'code', 'pre']);
const SCORED_TAGS = new Set(['section', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'td', 'pre']);
const TAG_BASE_SCORE: Record<string, number> = {
  div: 5,
  pre: 3, td: 3, blockquote: 3,
  address: -3, ol: -3, ul: -3, dl: -3, dd: -3, dt: -3, li: -3, form: -3,
  h1: -5, h2: -5, h3: -5, h4: -5, h5: -5, h6: -5, th: -5,
};
const MIN_PARAGRAPH_LENGTH = 25;
const ANCESTOR_DEPTH = 5;
const TOP_CANDIDATES = 5;
const MIN_SHARED_TOP_CANDIDATES = 3;
/** A layout table holding this share of the page's text is the page's layout. */
const PAGE_LAYOUT_SHARE = 0.7;


interface Paragraph {
  /** First ancestor that receives the score. */
  from: Element;
  score: number;
  /** The paragraph is this table cell's text (a cell is scored as Readability scores a `<p>`). */
  cell?: Element;
}

/** What the caller knows of the page once, for every attempt. */
export interface PageHints {
  /** The words of the article's own title (`articleTitleWords`). */
  titleWords: ReadonlySet<string>;
  /** Comment blocks found by their reply controls (`replyBlocks`): dropped on every attempt, as page chrome is. */
  comments: ReadonlySet<Element>;
}

export function scoreMainContent(
  root: ParentNode,
  skip: ReadonlySet<AnyNode>,
  flags: ScoringFlags,
  hints: PageHints,
): ScoredContent | undefined {
  const scorer = new Scorer(root, skip, flags, hints);
  return scorer.run();
}

class Scorer {
  private readonly stats = new Map<Element, Stats>();
  private readonly scores = new Map<Element, number>();
  private readonly dropped = new Set<AnyNode>();
  /** Divs holding a single `<p>` and nothing else: Readability replaces them by the `<p>`. */
  private readonly wrappers = new Set<Element>();
  private readonly dataTables = new Map<Element, boolean>();
  private readonly paragraphs: Paragraph[] = [];

  constructor(
    private readonly root: ParentNode,
    private readonly skip: ReadonlySet<AnyNode>,
    private readonly flags: ScoringFlags,
    private readonly hints: PageHints,
  ) {}

  run(): ScoredContent | undefined {
    const pageStats = this.gatherStats();
    for (const { from, score, cell } of this.paragraphs) this.propagate(cell && this.isPageColumn(cell, pageStats) ? cell : from, score);
    let top = this.chooseTopCandidate();
    if (!top) return undefined;
    const page = { stats: (el: Element) => this.stats.get(el), scores: this.scores };
    const heading = titleHeading(this.root, this.hints.titleWords, page);
    const post = heading && postUnderTitle(top, heading, page, this.classWeight(top));
    if (post) {
      top = post;
      this.scores.set(post, this.initialScore(post));
    }
    const roots = this.collectSiblings(top);
    const skip = new Set<AnyNode>(this.skip);
    for (const node of this.dropped) skip.add(node);
    const cleaned = cleanContent(roots, skip, {
      cleanConditionally: this.flags.cleanConditionally,
      stats: (el) => this.stats.get(el),
      isDataTable: (table) => this.isDataTable(table),
      classWeight: (el) => this.classWeight(el),
      keptChildren: (el) => this.keptChildren(el),
    });
    // Cleaned elements are disjoint subtrees of the roots (a cleaned root cancels itself out).
    let chosenLength = 0;
    let text = 0;
    let links = 0;
    for (const root of roots) {
      const stats = this.stats.get(root);
      chosenLength += stats?.visible ?? 0;
      text += stats?.text ?? 0;
      links += stats?.links ?? 0;
    }
    let length = chosenLength;
    for (const el of cleaned) length -= this.visible(el);
    const linkDensity = text === 0 ? 0 : links / text;
    return { roots, skip, length, chosenLength, linkDensity, pageLength: pageStats.visible, underTitle: post !== undefined };
  }

  private visible(el: Element): number {
    return this.stats.get(el)?.visible ?? 0;
  }

  // --- Pass 1: statistics and paragraph scores ---

  /** Returns the statistics of the whole root. */
  private gatherStats(): Stats {
    const root = newFrame(this.root);
    const stack: Frame[] = [root];
    let inTableOrCode = 0;
    while (stack.length > 0) {
      const frame = stack[stack.length - 1] as Frame;
      const child = this.nextChild(frame, inTableOrCode > 0);
      if (child) {
        if (TABLE_OR_CODE.has(child.name)) inTableOrCode++;
        stack.push(newFrame(child));
        continue;
      }
      stack.pop();
      const parent = stack[stack.length - 1];
      if (!parent || !isTag(frame.el)) continue;
      if (TABLE_OR_CODE.has(frame.el.name)) inTableOrCode--;
      this.finish(frame, frame.el);
      parent.stats.add(frame.stats);
      if (PHRASING_TAGS.has(frame.el.name)) {
        parent.runText += frame.stats.text;
        parent.runCommas += frame.stats.commas;
      }
    }
    return root.stats;
  }

  /** Consumes the frame's text children up to its next kept element child, which it returns. */
  private nextChild(frame: Frame, inTableOrCode: boolean): Element | undefined {
    const { children } = frame.el;
    while (frame.next < children.length) {
      const child = children[frame.next++] as AnyNode;
      if (isText(child)) {
        addText(frame, child.data);
        continue;
      }
      if (!isTag(child) || this.skip.has(child)) continue;
      if (this.shouldDrop(child, inTableOrCode)) {
        this.dropped.add(child);
        continue;
      }
      frame.elementChildren++;
      frame.onlyElement = frame.elementChildren === 1 ? child : undefined;
      if (!PHRASING_TAGS.has(child.name)) {
        frame.hasBlockChild = true;
        this.closeRun(frame);
      }
      return child;
    }
    if (frame.hasBlockChild) this.closeRun(frame);
    return undefined;
  }

  private shouldDrop(el: Element, inTableOrCode: boolean): boolean {
    const { attribs } = el;
    if (attribs['aria-hidden'] === 'true' && !(attribs.class ?? '').includes('fallback-image')) return true;
    // Comments are found by what they are, so a table-laid-out page's thread goes too.
    if (isSchemaComment(el) || this.hints.comments.has(el)) return true;
    if (inTableOrCode) return false;
    if (CHROME_TAGS.has(el.name)) return true;
    if (!this.flags.stripUnlikely) return false;
    if (attribs.role && UNLIKELY_ROLES.has(attribs.role)) return true;
    if (el.name === 'body' || el.name === 'a' || !hasClassOrId(el)) return false;
    const match = classAndId(el);
    if (AD_TOKEN.test(match)) return true;
    // Code is almost never boilerplate: keep a block that holds some even if its class looks unlikely.
    return UNLIKELY.test(match) && !MAYBE_CANDIDATE.test(match) && !containsTag(el, 'pre');
  }

  private finish(frame: Frame, el: Element): void {
    const { stats } = frame;
    const name = el.name;
    this.stats.set(el, stats);
    switch (name) {
      case 'a':
        stats.links = stats.text * (/^#./.test(el.attribs.href ?? '') ? 0.3 : 1);
        break;
      case 'p':
        stats.p++;
        break;
      case 'img':
        stats.img++;
        break;
      case 'li':
        stats.li++;
        break;
      case 'input':
        stats.input++;
        break;
      case 'object':
      case 'embed':
      case 'iframe':
        stats.embed++;
        break;
      case 'ul':
      case 'ol':
        stats.listText += stats.text;
        break;
      case 'pre':
        stats.hasPre = true;
        break;
      case 'table':
        stats.hasDataTable ||= this.isDataTable(el);
        break;
      case 'h1':
      case 'h2':
      case 'h3':
      case 'h4':
      case 'h5':
      case 'h6':
        stats.headingText += stats.text;
        break;
    }
    const parent = isElement(el.parent) ? el.parent : undefined;
    if (SCORED_TAGS.has(name)) {
      if (parent) this.addParagraph(parent, stats.text, stats.commas, name === 'td' ? el : undefined);
      return;
    }
    if (name !== 'div') return;
    if (!frame.hasBlockChild) {
      // Only phrasing content: Readability turns the div itself into a paragraph.
      if (parent) this.addParagraph(parent, stats.text, stats.commas);
      return;
    }
    if (frame.onlyElement?.name === 'p' && !frame.hasDirectText && stats.linkDensity < 0.25) this.wrappers.add(el);
  }

  private closeRun(frame: Frame): void {
    if (isTag(frame.el) && frame.el.name === 'div') this.addParagraph(frame.el, frame.runText, frame.runCommas);
    frame.runText = 0;
    frame.runCommas = 0;
  }

  private addParagraph(from: Element, textLength: number, commas: number, cell?: Element): void {
    if (textLength < MIN_PARAGRAPH_LENGTH) return;
    this.paragraphs.push({ from, score: 1 + commas + Math.min(Math.floor(textLength / 100), 3), cell });
  }

  /**
   * A cell of a layout table that lays out the whole page is one of its columns (the post, the
   * sidebar), not a paragraph: it is a candidate itself, so the post's column can win over the row
   * that holds the sidebar's too. A layout table inside an article (a box, two columns of it) is not.
   */
  private isPageColumn(cell: Element, page: Stats): boolean {
    const row = cell.parent;
    const section = isElement(row) ? row.parent : null;
    const table = isElement(section) && section.name !== 'table' ? section.parent : section;
    if (!isElement(table) || table.name !== 'table' || this.isDataTable(table)) return false;
    return (this.stats.get(table)?.text ?? 0) >= page.text * PAGE_LAYOUT_SHARE;
  }

  private propagate(from: Element, score: number): void {
    let level = 0;
    for (let node: ParentNode | null = from; node && level < ANCESTOR_DEPTH; node = node.parent) {
      if (!isTag(node) || node === this.root || !isElement(node.parent)) break;
      if (this.wrappers.has(node)) continue;
      const divider = level === 0 ? 1 : level === 1 ? 2 : level * 3;
      this.scores.set(node, this.initialScore(node) + score / divider);
      level++;
    }
  }

  private initialScore(el: Element): number {
    return this.scores.get(el) ?? (TAG_BASE_SCORE[el.name] ?? 0) + this.classWeight(el);
  }

  private classWeight(el: Element): number {
    if (!this.flags.weightClasses) return 0;
    let weight = 0;
    for (const value of [el.attribs.class, el.attribs.id]) {
      if (!value) continue;
      if (NEGATIVE.test(value)) weight -= 25;
      if (POSITIVE.test(value)) weight += 25;
    }
    return weight;
  }

  private isDataTable(table: Element): boolean {
    const cached = this.dataTables.get(table);
    if (cached !== undefined) return cached;
    const result = computeIsDataTable(table);
    this.dataTables.set(table, result);
    return result;
  }

  // --- Pass 2: the top candidate and its siblings ---

  private chooseTopCandidate(): Element | undefined {
    const top: Array<[Element, number]> = [];
    for (const [el, raw] of this.scores) {
      const score = raw * (1 - (this.stats.get(el)?.linkDensity ?? 0));
      this.scores.set(el, score);
      if (top.length < TOP_CANDIDATES || score > (top[top.length - 1] as [Element, number])[1]) {
        top.push([el, score]);
        top.sort((a, b) => b[1] - a[1]);
        if (top.length > TOP_CANDIDATES) top.pop();
      }
    }
    const best = top[0];
    if (!best) return undefined;
    let [candidate, candidateScore] = best;

    // Several strong candidates under one ancestor (e.g. cards of one list): the ancestor is the content.
    const alternatives = top.slice(1).filter(([, score]) => score / candidateScore >= 0.75);
    if (alternatives.length >= MIN_SHARED_TOP_CANDIDATES) {
      const ancestorSets = alternatives.map(([el]) => new Set(this.ancestors(el)));
      for (const ancestor of this.ancestors(candidate)) {
        const sharing = ancestorSets.filter((set) => set.has(ancestor)).length;
        if (sharing >= MIN_SHARED_TOP_CANDIDATES) {
          candidate = ancestor;
          break;
        }
      }
    }
    candidateScore = this.initialScore(candidate);
    this.scores.set(candidate, candidateScore);

    // Climb while a parent scores better: the content often spans several scored children.
    let lastScore = candidateScore;
    const threshold = lastScore / 3;
    for (const parent of this.ancestors(candidate)) {
      const parentScore = this.scores.get(parent);
      if (parentScore === undefined) continue;
      if (parentScore < threshold) break;
      if (parentScore > lastScore) {
        candidate = parent;
        break;
      }
      lastScore = parentScore;
    }
    for (let parent = candidate.parent; isElement(parent) && parent !== this.root; parent = parent.parent) {
      if (this.keptChildren(parent).length !== 1) break;
      candidate = parent;
    }
    if (!this.scores.has(candidate)) this.scores.set(candidate, this.initialScore(candidate));
    return candidate;
  }

  /** Ancestors below the root, nearest first. */
  private ancestors(el: Element): Element[] {
    const out: Element[] = [];
    for (let node = el.parent; isElement(node) && node !== this.root; node = node.parent) out.push(node);
    return out;
  }

  private keptChildren(el: ParentNode): Element[] {
    return el.children.filter((c): c is Element => isTag(c) && !this.skip.has(c) && !this.dropped.has(c));
  }

  private collectSiblings(top: Element): Element[] {
    const parent = top.parent;
    if (!parent) return [top];
    const topScore = this.scores.get(top) ?? 0;
    const threshold = Math.max(10, topScore * 0.2);
    const topClass = top.attribs.class ?? '';
    return this.keptChildren(parent).filter((sibling) => {
      if (sibling === top) return true;
      // Cards of other stories beside the article score as well as it does, and are none of it.
      if (isListOfOtherPosts(sibling, (e) => this.stats.get(e))) return false;
      const bonus = topClass !== '' && sibling.attribs.class === topClass ? topScore * 0.2 : 0;
      const score = this.scores.get(sibling);
      if (score !== undefined && score + bonus >= threshold) return true;
      if (sibling.name !== 'p') return false;
      const stats = this.stats.get(sibling);
      if (!stats) return false;
      if (stats.text > 80) return stats.linkDensity < 0.25;
      return stats.text > 0 && stats.linkDensity === 0 && /\.( |$)/.test(textContent(sibling));
    });
  }
}
