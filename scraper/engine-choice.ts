/**
 * Which engine serves a request. Plain HTTP costs about 1 ms of CPU per page, Chromium about
 * 180 ms, so the browser runs only when the request needs one or the page's content needs
 * JavaScript to appear (see README, "Choosing the engine").
 */

// Where it is defined: workflows, which cannot import the scraper, read it too (batching crawl pages).
export { browserRequiredBy } from '../contracts/browser-required.js';

const SCRIPT_OR_STYLE = /<(script|style|noscript|template)\b[\s\S]*?<\/\1\s*>/gi;
const TAG = /<[^>]+>/g;
const ENTITY = /&[#a-z0-9]+;/gi;
const WHITESPACE = /\s+/g;
const EMPTY_APP_ROOT = /<div\s+id=["'](root|app|__next|__nuxt|svelte)["'][^>]*>\s*<\/div>/i;
const HAS_SCRIPT = /<script\b/i;
const ASKS_FOR_JS = /<noscript\b[^>]*>[\s\S]{0,400}?(enable|requires?|turn on)\s+javascript/i;

/** Pages with less visible text than this, and scripts that could add more, are rendered. */
const MIN_STATIC_TEXT_CHARS = 200;
/**
 * A "please enable JavaScript" notice speaks for the page only when the page has less text than
 * this: news and blog articles that are fully server-rendered often carry one for a comments
 * widget, and rendering them costs seconds for nothing.
 */
const SUBSTANTIAL_TEXT_CHARS = 1_500;

/**
 * A cheap string-level test on the HTTP response (no DOM): does this page need JavaScript to
 * show its content? True for empty SPA shells, script-driven pages with almost no server-rendered
 * text, and "please enable JavaScript" pages that have little else to show.
 */
export function needsJavaScript(html: string): boolean {
  if (!HAS_SCRIPT.test(html)) return false;
  if (EMPTY_APP_ROOT.test(html)) return true;
  const bodyStart = html.search(/<body\b/i);
  const body = bodyStart >= 0 ? html.slice(bodyStart) : html;
  const text = body.replace(SCRIPT_OR_STYLE, ' ').replace(TAG, ' ').replace(ENTITY, ' ').replace(WHITESPACE, ' ').trim();
  if (text.length < MIN_STATIC_TEXT_CHARS) return true;
  return text.length < SUBSTANTIAL_TEXT_CHARS && ASKS_FOR_JS.test(html);
}
