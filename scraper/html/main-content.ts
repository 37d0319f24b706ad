/**
 * Which part of the page becomes `markdown` and `html`. The order is fixed and documented:
 *  1. always drop script/style/noscript/template/head and hidden elements;
 *  2. drop `excludeTags` matches (they win over everything, including `includeTags`);
 *  3. with `includeTags`, the matches ARE the content: explicit selectors beat heuristics, so
 *     `onlyMainContent` does not prune them further;
 *  4. with `onlyMainContent`, a content scorer picks the main content; when it finds nothing, or
 *     keeps too little of the page's text, a selector blocklist (Firecrawl's) takes over, and when
 *     that empties the page too, the full page is used. Both fallbacks set a warning.
 *
 * Nothing here mutates the tree: a selection is a list of subtrees plus nodes to leave out.
 */
import { selectAll, selectOne } from 'css-select';
import { NonRetryablePageError } from '../../lib/errors.js';
import type { TransformOptions } from '../types.js';
import { replyBlocks } from './comment-blocks.js';
import { scoreMainContent, type ScoredContent, type ScoringFlags } from './content-scoring.js';
import { findElement, isTag, textContent, visibleTextLength, walkElements } from './dom.js';
import { articleTitleWords, words } from './title-anchor.js';
import type { AnyNode, Document, Element, ParentNode } from './dom.js';

export interface ContentSelection {
  /** Subtrees to render, in document order. */
  roots: AnyNode[];
  /** Nodes inside `roots` that every output leaves out. */
  skip: ReadonlySet<AnyNode>;
  warning?: string;
}

export interface SelectionOptions extends Pick<TransformOptions, 'onlyMainContent' | 'includeTags' | 'excludeTags'> {
  /** `<title>` and og:title, used to bring back the article's `<h1>` when the scorer left it out. */
  titles?: Array<string | undefined>;
  /** og:site_name: an `<h1>` that says only this is the site's logo, not the article's title. */
  siteName?: string;
}

export const FALLBACK_WARNING = 'main content extraction fallback';
export const NO_INCLUDE_MATCH_WARNING = 'includeTags matched no element on this page';

const ALWAYS_DROPPED = new Set(['script', 'style', 'noscript', 'template', 'head', 'meta', 'link', 'base', 'title']);
const HIDDEN_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!important\s*)?(?:;|$)/i;

/** Firecrawl's onlyMainContent blocklist (its html-transformer), used as the fallback. */
const BLOCKLIST = [
  'header', 'footer', 'nav', 'aside', '.header', '.top', '.navbar', '#header', '.footer', '.bottom', '#footer',
  '.sidebar', '.side', '.aside', '#sidebar', '.modal', '.popup', '#modal', '.overlay', '.ad', '.ads', '.advert',
  '#ad', '.lang-selector', '.language', '#language-selector', '.social', '.social-media', '.social-links',
  '#social', '.menu', '.navigation', '#nav', '.breadcrumbs', '#breadcrumbs', '.share', '#share', '.widget',
  '#widget', '.cookie', '#cookie',
].join(', ');
/** A blocklisted element that wraps the real content must not take it down with it. */
const FORCE_INCLUDE = 'main, article, [role="main"], #main, #content';

/** Readability's retry ladder: each attempt relaxes one more heuristic. */
const ATTEMPTS: ScoringFlags[] = [
  { stripUnlikely: true, weightClasses: true, cleanConditionally: true },
  { stripUnlikely: false, weightClasses: true, cleanConditionally: true },
  { stripUnlikely: false, weightClasses: false, cleanConditionally: true },
  { stripUnlikely: false, weightClasses: false, cleanConditionally: false },
];
/** Readability's `charThreshold`: below this many characters an attempt counts as failed. */
const ENOUGH_TEXT = 500;
/**
 * Below this share of the text the scorer chose from, it probably picked a fragment. Text it
 * dropped as unlikely (comments, sidebars, menus, footers) is not counted: a short article under
 * a long comment thread or a mega-menu is still the article.
 */
const MIN_SHARE = 0.1;
/** On small pages, a short pick must cover at least this share to be trusted. */
const SMALL_PICK = 250;
const SMALL_PICK_SHARE = 0.5;
/**
 * When the cleaning pass leaves less than this share of the chosen block, the scorer chose a
 * region of boilerplate (or one the cleaning cannot sort out): what is left is a caption or a
 * heading, not the article, and the blocklist's page is the safer answer.
 */
const MIN_KEPT_AFTER_CLEANING = 0.2;
/** How many times longer a laxer attempt's pick elsewhere must be to replace a trusted stricter one. */
const MOVE_FACTOR = 3;
/** A pick whose text is mostly link text is a link list (a menu, a list of stories), not an article. */
const MAX_PICK_LINK_DENSITY = 0.5;

export function selectContent(doc: Document, options: SelectionOptions): ContentSelection {
  const container: ParentNode = findElement(doc, 'body') ?? findElement(doc, 'html') ?? doc;
  const skip = baseSkip(container);
  for (const el of select(options.excludeTags, container, 'excludeTags')) skip.add(el);

  if (options.includeTags?.length) {
    const roots = includedRoots(container, select(options.includeTags, container, 'includeTags'), skip);
    return roots.length > 0 ? { roots, skip } : { roots, skip, warning: NO_INCLUDE_MATCH_WARNING };
  }
  // A fragment with no <html>/<body> has the document itself as container, which renders as its children.
  const whole: AnyNode[] = isTag(container) ? [container] : [...container.children];
  if (!options.onlyMainContent) return { roots: whole, skip };

  // The scorer counts visible text as it walks the page, so nothing here scans the text again.
  // Each attempt is judged on its own: a later, laxer attempt that is longer but untrusted (it
  // took in a comment thread the cleaning then gutted) must not hide an earlier trusted one.
  let best: ScoredContent | undefined;
  const hints = { titleWords: articleTitleWords(options.titles ?? []), comments: replyBlocks(container) };
  // A sibling combinator in excludeTags can match the container itself: then nothing is visible to choose from.
  if (!skip.has(container)) {
    for (const flags of ATTEMPTS) {
      const scored = scoreMainContent(container, skip, flags, hints);
      if (!scored || !isTrusted(scored)) continue;
      if (!best || (scored.length > best.length && extends_(scored, best))) best = scored;
      if (scored.length >= ENOUGH_TEXT) break;
    }
  }
  if (best) {
    const roots = withTitleHeading(container, best.roots, best.skip, skip, options.titles ?? [], options.siteName);
    return { roots, skip: best.skip };
  }

  const blockSkip = new Set(skip);
  for (const el of selectAll<AnyNode, Element>(BLOCKLIST, container)) {
    if (!selectOne<AnyNode, Element>(FORCE_INCLUDE, el.children)) blockSkip.add(el);
  }
  if (visibleTextLength(whole, blockSkip) > 0) return { roots: whole, skip: blockSkip, warning: FALLBACK_WARNING };
  return { roots: whole, skip, warning: FALLBACK_WARNING };
}

/**
 * A laxer attempt may widen a trusted pick (to take in parts the stricter one dropped), but not
 * move elsewhere for a little more text: that is what the stricter attempt dropped as unlikely (an
 * "About me" or events widget beside a short post). Only a pick several times longer moves it: the
 * stricter attempt then had nothing but a scrap left (a cookie notice) once the page was dropped.
 */
function extends_(later: ScoredContent, earlier: ScoredContent): boolean {
  const first = earlier.roots[0];
  if (later.length >= earlier.length * MOVE_FACTOR) return true;
  return first !== undefined && later.roots.some((root) => root === first || isAncestor(root, first));
}

function isAncestor(ancestor: Element, node: AnyNode): boolean {
  for (let current = node.parent; current; current = current.parent) if (current === ancestor) return true;
  return false;
}

function isTrusted(scored: ScoredContent): boolean {
  const { length, pageLength } = scored;
  if (length === 0 || length < pageLength * MIN_SHARE) return false;
  if (length < SMALL_PICK && length < pageLength * SMALL_PICK_SHARE) return false;
  // A list of links under the post's title is the post (a link roundup), not a menu.
  return length >= scored.chosenLength * MIN_KEPT_AFTER_CLEANING && (scored.underTitle || scored.linkDensity <= MAX_PICK_LINK_DENSITY);
}

function baseSkip(container: ParentNode): Set<AnyNode> {
  const skip = new Set<AnyNode>();
  walkElements(container, (el) => {
    const { attribs } = el;
    if (ALWAYS_DROPPED.has(el.name) || attribs.hidden !== undefined || (attribs.style && HIDDEN_STYLE.test(attribs.style))) {
      skip.add(el);
      return false;
    }
    return true;
  });
  return skip;
}

function select(selectors: string[] | undefined, container: ParentNode, field: string): Set<Element> {
  const matched = new Set<Element>();
  for (const selector of selectors ?? []) {
    try {
      for (const el of selectAll<AnyNode, Element>(selector, container)) matched.add(el);
    } catch (cause) {
      throw new NonRetryablePageError('BAD_REQUEST', `Invalid CSS selector in ${field}: ${selector}`, { cause });
    }
  }
  return matched;
}

/** Outermost matches in document order; matches inside dropped or already included elements add nothing. */
function includedRoots(container: ParentNode, matched: Set<Element>, skip: ReadonlySet<AnyNode>): Element[] {
  const roots: Element[] = [];
  walkElements(container, (el) => {
    if (skip.has(el)) return false;
    if (!matched.has(el)) return true;
    roots.push(el);
    return false;
  });
  return roots;
}

/**
 * Scorers drop the article header with the byline, and the title with it. When the content has no
 * `<h1>`, bring back the one nearest before the content (else the first one after its start), if its words are the page
 * title's: that tells the article title from a logo or a section name. It is the page's own
 * heading, never one made up from `<title>`: Firecrawl's markdown is the page's content as written.
 * Titles also carry the site's name ("Story | The Daily Post"), so a logo marked up as an `<h1>`
 * would pass that test: an `<h1>` that says only the site's name is passed over.
 */
function withTitleHeading(
  container: ParentNode,
  roots: Element[],
  skip: ReadonlySet<AnyNode>,
  baseSkipped: ReadonlySet<AnyNode>,
  titles: Array<string | undefined>,
  siteName: string | undefined,
): Element[] {
  const first = roots[0];
  const titleWords = articleTitleWords(titles);
  if (!first || titleWords.size === 0 || roots.some((root) => hasVisibleTag(root, 'h1', skip))) return roots;
  const site = words(siteName ?? '').join(' ');
  let before: Element | undefined;
  let after: Element | undefined;
  let reachedContent = false;
  walkElements(container, (el) => {
    if (after || baseSkipped.has(el)) return false;
    reachedContent ||= el === first;
    if (el.name !== 'h1') return true;
    if (site !== '' && words(textContent(el)).join(' ') === site) return false;
    if (reachedContent) after = el;
    else before = el;
    return false;
  });
  const heading = before ?? after;
  if (!heading) return roots;
  const headingWords = words(textContent(heading));
  const shared = headingWords.filter((w) => titleWords.has(w)).length;
  return headingWords.length > 0 && shared / headingWords.length >= 0.5 ? [heading, ...roots] : roots;
}

function hasVisibleTag(root: Element, name: string, skip: ReadonlySet<AnyNode>): boolean {
  if (root.name === name) return true;
  let found = false;
  walkElements(root, (el) => {
    if (found || skip.has(el)) return false;
    found = el.name === name;
    return !found;
  });
  return found;
}
