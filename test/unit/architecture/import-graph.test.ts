/**
 * The import graph of the product code (type imports included): no cycles, and nothing imports
 * worker/, which only wires the process. ESLint's import-x/no-cycle checks cycles file by file;
 * this checks the whole graph at once and names every cycle.
 */
import madge from 'madge';
import { describe, expect, it } from 'vitest';

const PRODUCT_DIRS = ['api', 'activities', 'workflows', 'worker', 'db', 'scraper', 'browser', 'contracts', 'lib', 'llm'];

async function productGraph(): Promise<Record<string, string[]>> {
  const result = await madge(PRODUCT_DIRS, {
    fileExtensions: ['ts'],
    tsConfig: 'tsconfig.json',
    detectiveOptions: { ts: { skipTypeImports: false }, tsx: { skipTypeImports: false } },
  });
  return result.obj();
}

describe('import graph', () => {
  it('has no cycles and no imports of worker/', async () => {
    const graph = await productGraph();
    expect(Object.keys(graph).length).toBeGreaterThan(100);
    const cycles = stronglyConnected(graph).filter((scc) => scc.length > 1 || graph[scc[0]!]?.includes(scc[0]!));
    expect(cycles).toEqual([]);
    const intoWorker = Object.entries(graph).flatMap(([from, deps]) =>
      from.startsWith('worker/') ? [] : deps.filter((d) => d.startsWith('worker/')).map((d) => `${from} -> ${d}`),
    );
    expect(intoWorker).toEqual([]);
  }, 120_000);

  it('sees a cycle when there is one', () => {
    expect(stronglyConnected({ a: ['b'], b: ['c'], c: ['a'], d: ['a'] })).toContainEqual(['a', 'b', 'c']);
  });
});

/** Tarjan's algorithm: the graph's strongly connected components, each sorted. */
function stronglyConnected(graph: Record<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph[v] ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      out.push(scc.sort());
    }
  };
  for (const v of Object.keys(graph)) if (!index.has(v)) visit(v);
  return out;
}
