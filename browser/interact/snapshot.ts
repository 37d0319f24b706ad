/**
 * `snapshot`: the page as an agent reads it, one line per element, in document order, with a ref
 * (`e5`) on each interactive one that later ops name as `@e5`. The refs are attributes on the
 * elements (`data-trawl-ref`), renumbered by every snapshot, so a ref always means what the last
 * snapshot showed. Runs in the page, bounded by MAX_NODES.
 */
import type { Page } from 'playwright-core';

const MAX_NODES = 2_000;

/** Runs in the page; plain JavaScript, so nothing the bundler adds (`__name`) is needed there. */
const SNAPSHOT_SCRIPT = `(({ interactiveOnly, maxNodes }) => {
  const INTERACTIVE = 'a[href],button,input,select,textarea,summary,[role=button],[role=link],[role=checkbox],[role=tab],[role=menuitem],[contenteditable=""],[contenteditable=true],[onclick]';
  const STRUCTURE = 'h1,h2,h3,h4,h5,h6,p,li,td,th,label,img[alt]';
  for (const old of document.querySelectorAll('[data-trawl-ref]')) old.removeAttribute('data-trawl-ref');
  const visible = (el) => {
    const box = el.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) return false;
    const style = getComputedStyle(el);
    return style.visibility !== 'hidden' && style.display !== 'none';
  };
  const nameOf = (el) => (el.getAttribute('aria-label') || el.getAttribute('alt') || el.getAttribute('placeholder') || el.innerText || el.value || el.getAttribute('title') || '').replace(/\\s+/g, ' ').trim().slice(0, 120);
  const roleOf = (el) => el.getAttribute('role') || ({ A: 'link', BUTTON: 'button', SELECT: 'combobox', TEXTAREA: 'textbox', SUMMARY: 'button', IMG: 'img', LI: 'listitem', TD: 'cell', TH: 'columnheader', P: 'paragraph', LABEL: 'label' })[el.tagName] || (el.tagName === 'INPUT' ? ({ checkbox: 'checkbox', radio: 'radio', submit: 'button', button: 'button' })[el.type] || 'textbox' : /^H[1-6]$/.test(el.tagName) ? 'heading' : el.tagName.toLowerCase());
  const lines = [];
  let ref = 0;
  for (const el of document.querySelectorAll(interactiveOnly ? INTERACTIVE : INTERACTIVE + ',' + STRUCTURE)) {
    if (lines.length >= maxNodes) { lines.push('- … (more elements not shown)'); break; }
    if (!visible(el)) continue;
    const interactive = el.matches(INTERACTIVE);
    const name = nameOf(el);
    if (!interactive && name === '') continue;
    let line = '- ' + roleOf(el) + (name ? ' ' + JSON.stringify(name) : '');
    if (interactive) {
      ref += 1;
      el.setAttribute('data-trawl-ref', 'e' + ref);
      line += ' [ref=e' + ref + ']';
    }
    if (/^H[1-6]$/.test(el.tagName)) line += ' [level=' + el.tagName[1] + ']';
    if (el.tagName === 'A' && el.getAttribute('href')) line += ' [href=' + el.getAttribute('href').slice(0, 200) + ']';
    lines.push(line);
  }
  return lines.join('\\n');
})`;

export async function snapshot(page: Page, interactiveOnly: boolean): Promise<string> {
  const text = await page.evaluate(`${SNAPSHOT_SCRIPT}(${JSON.stringify({ interactiveOnly, maxNodes: MAX_NODES })})`);
  return String(text);
}

/** The selector a ref stands for. */
export function refSelector(ref: string): string {
  return `[data-trawl-ref="${ref}"]`;
}
