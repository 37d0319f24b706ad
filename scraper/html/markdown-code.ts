/**
 * Code blocks for the Markdown output: every `<pre>` becomes a fenced block holding the code byte
 * for byte. Turndown's own rule only handles `<pre>` whose first child is `<code>`, reads only
 * `language-x`, and takes `textContent`, which keeps line-number gutters and copy-button labels.
 */
import type TurndownService from 'turndown';

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
  service.addRule('codeBlock', {
    filter: 'pre',
    replacement: (_content, pre) => {
      // The HTML parser already dropped the newline right after `<pre>`, as browsers do.
      const code = preformattedText(pre).replace(/\n+$/, '');
      return code.trim() ? `\n\n${fencedCodeBlock(code, codeLanguage(pre))}\n\n` : '';
    },
  });
}

function codeLanguage(pre: HTMLElement): string {
  const fromPre = LANGUAGE.exec(pre.className);
  if (fromPre) return fromPre[1] as string;
  const code = [...pre.childNodes].find((child) => child.nodeName === 'CODE');
  const fromCode = code ? LANGUAGE.exec((code as Element).className) : null;
  return fromCode?.[1] ?? pre.getAttribute('data-lang') ?? pre.getAttribute('data-language') ?? '';
}

/** Raw text of a `<pre>`: gutters and buttons left out, line-per-element markup given its newlines. */
function preformattedText(pre: HTMLElement): string {
  let out = '';
  const stack: Node[] = [...pre.childNodes].reverse();
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    if (node.nodeType === node.TEXT_NODE) {
      out += (node as Text).data;
      continue;
    }
    if (node.nodeType !== node.ELEMENT_NODE) continue;
    const el = node as Element;
    if (el.nodeName === 'BUTTON' || GUTTER.test(el.getAttribute('class') ?? '')) continue;
    if (el.nodeName === 'BR') {
      out += '\n';
      continue;
    }
    if (LINE_ELEMENTS.has(el.nodeName) && out !== '' && !out.endsWith('\n')) out += '\n';
    for (let i = el.childNodes.length - 1; i >= 0; i--) stack.push(el.childNodes[i] as Node);
  }
  return out;
}
