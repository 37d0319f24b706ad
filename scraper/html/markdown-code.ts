/**
 * Code blocks for the Markdown output: every `<pre>` becomes a fenced block holding the code byte
 * for byte. Turndown's own rule only handles `<pre>` whose first child is `<code>`, reads only
 * `language-x`, and takes `textContent`, which keeps line-number gutters and copy-button labels.
 */
import type TurndownService from 'turndown';
import { addRule, ELEMENT_NODE, TEXT_NODE, type DomElement, type DomNode } from './turndown-dom.js';

const LANGUAGE = /(?:^|\s)(?:language|lang)-([\w#+.-]+)/i;
const GUTTER =
  /(?:^|\s)(?:gutter|line-?numbers?|linenos?|lineno|hljs-ln-numbers|rouge-gutter|react-syntax-highlighter-line-number)(?:\s|$)/i;
/** Highlighters that put each line in its own element rely on CSS for the line breaks. */
const LINE_ELEMENTS = new Set(['DIV', 'P', 'LI', 'TR', 'SECTION']);

/** A fenced code block whose fence is longer than any backtick run at the start of a code line. */
export function fencedCodeBlock(code: string, language = ''): string {
  let longest = 2;
  for (const match of code.matchAll(/^ {0,3}(`{3,})/gm)) longest = Math.max(longest, (match[1] as string).length);
  const fence = '`'.repeat(longest + 1);
  return `${fence}${language}\n${code}\n${fence}`;
}

export function codeBlocks(service: TurndownService): void {
  addRule(service, 'codeBlock', {
    filter: 'pre',
    replacement: (_content, pre) => {
      // The tree has no newline right after `<pre>`: a parser drops it, as browsers do (turndown-tree.ts).
      const code = preformattedText(pre).replace(/\n+$/, '');
      return code.trim() ? `\n\n${fencedCodeBlock(code, codeLanguage(pre))}\n\n` : '';
    },
  });
}

function codeLanguage(pre: DomElement): string {
  const fromPre = LANGUAGE.exec(pre.className);
  if (fromPre) return fromPre[1] as string;
  const code = pre.childNodes.find((child) => child.nodeName === 'CODE');
  const fromCode = code?.nodeType === ELEMENT_NODE ? LANGUAGE.exec(code.className) : null;
  return fromCode?.[1] ?? pre.getAttribute('data-lang') ?? pre.getAttribute('data-language') ?? '';
}

/** Raw text of a `<pre>`: gutters and buttons left out, line-per-element markup given its newlines. */
function preformattedText(pre: DomElement): string {
  let out = '';
  const stack: DomNode[] = [...pre.childNodes].reverse();
  while (stack.length > 0) {
    const node = stack.pop() as DomNode;
    if (node.nodeType === TEXT_NODE) {
      out += node.data;
      continue;
    }
    if (node.nodeName === 'BUTTON' || GUTTER.test(node.className)) continue;
    if (node.nodeName === 'BR') {
      out += '\n';
      continue;
    }
    if (LINE_ELEMENTS.has(node.nodeName) && out !== '' && !out.endsWith('\n')) out += '\n';
    const { childNodes } = node;
    for (let i = childNodes.length - 1; i >= 0; i--) stack.push(childNodes[i] as DomNode);
  }
  return out;
}
