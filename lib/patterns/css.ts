/**
 * CSS selectors a user sends (includeTags, excludeTags, anything new that css-select runs in the
 * worker's Node process). css-select matches right to left and caches descendant checks, so plain
 * compound selectors with combinators cost about (elements × depth). Some of its pseudo-classes do
 * not: `:has()` searches a subtree for every element, and nested, its cost multiplies (three nested
 * `:has()` on a 200-deep page took 3.5 s); `:contains()` reads the text under every element. Those
 * are refused, as are subselects nested in subselects, so every user selector stays within the
 * cost of its compounds.
 */
import { parse, type Selector } from 'css-what';

/** More compounds than this in one selector list is refused: each costs a pass over the tree. */
export const MAX_SELECTOR_COMPOUNDS = 32;

const REFUSED_PSEUDOS = new Set(['has', 'contains', 'icontains']);
const SUBSELECT_PSEUDOS = new Set(['not', 'is', 'where', 'matches', 'any']);
const REFUSED_TRAVERSALS = new Set(['parent', 'column-combinator']);

/** A message fit for a 400, or undefined when the selector is accepted. */
export function selectorProblem(selector: string): string | undefined {
  let groups: Selector[][];
  try {
    groups = parse(selector);
  } catch (err) {
    return `not a valid CSS selector (${err instanceof Error ? err.message : String(err)})`;
  }
  let compounds = 0;
  const visit = (list: Selector[][], nested: boolean): string | undefined => {
    for (const group of list) {
      compounds += 1 + group.filter((token) => isTraversal(token.type)).length;
      for (const token of group) {
        if (REFUSED_TRAVERSALS.has(token.type)) return `the '${token.type}' combinator is not supported`;
        if (token.type !== 'pseudo') continue;
        if (REFUSED_PSEUDOS.has(token.name)) return `:${token.name}() is not supported (its cost grows with the page's size squared)`;
        if (!Array.isArray(token.data)) continue;
        if (nested) return `:${token.name}() may not be nested inside another selector function`;
        if (!SUBSELECT_PSEUDOS.has(token.name)) return `:${token.name}() with a selector is not supported`;
        const problem = visit(token.data, true);
        if (problem) return problem;
      }
    }
    return undefined;
  };
  const problem = visit(groups, false);
  if (problem) return problem;
  if (compounds > MAX_SELECTOR_COMPOUNDS) return `at most ${MAX_SELECTOR_COMPOUNDS} compound selectors are allowed, got ${compounds}`;
  return undefined;
}

function isTraversal(type: Selector['type']): boolean {
  return type === 'descendant' || type === 'child' || type === 'sibling' || type === 'adjacent' || type === 'parent' || type === 'column-combinator';
}
