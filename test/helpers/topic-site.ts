/**
 * A generated site with one relevant region and a large irrelevant one, for the query-directed
 * crawl (its e2e test and bench/scenarios/focused-crawl.ts). Sections of equal shape: the home
 * page links to each section's index, and a section's pages form a binary tree under it, so a
 * crawler finds a section's deep pages only through its shallow ones. The relevant section is
 * about installing solar panels; the others are about bread, football, gardens, trains, and so on.
 * Every page carries a menu of all sections, and cross-links to pages of other sections (one in
 * ten of them into the relevant one), so breadth first wanders every section at once.
 *
 * With `vague`, links say nothing themselves: URLs are opaque (`/a/<n>`), anchors read "read
 * more" and menu entries "section n"; what a page is about shows only in the text beside the link
 * (`<li>Solar panel installation, part 3: <a>read more</a></li>`) and on the page itself.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TopicSite {
  url: string;
  /** Pages in all, and the paths of the relevant ones (the solar section, its index included). */
  pages: number;
  relevant: ReadonlySet<string>;
  /** What a crawl of the site looks for. */
  query: string;
  /** Requests per page path. */
  hits: Map<string, number>;
  close(): Promise<void>;
}

const RELEVANT = { slug: 'solar', name: 'Solar panel installation', words: ['solar', 'panel', 'installation', 'inverter', 'roof', 'mounting', 'wiring', 'photovoltaic', 'array', 'kilowatt'] };
const OTHERS = [
  { slug: 'bread', name: 'Bread baking', words: ['flour', 'dough', 'yeast', 'oven', 'crust', 'loaf', 'knead', 'sourdough', 'rye', 'bake'] },
  { slug: 'football', name: 'Football results', words: ['match', 'goal', 'league', 'striker', 'referee', 'season', 'stadium', 'coach', 'penalty', 'cup'] },
  { slug: 'garden', name: 'Garden care', words: ['tomato', 'compost', 'seed', 'prune', 'soil', 'weed', 'shrub', 'lawn', 'water', 'bloom'] },
  { slug: 'trains', name: 'Railway history', words: ['locomotive', 'steam', 'track', 'station', 'carriage', 'timetable', 'signal', 'gauge', 'diesel', 'depot'] },
  { slug: 'knitting', name: 'Knitting patterns', words: ['wool', 'needle', 'stitch', 'yarn', 'purl', 'scarf', 'sweater', 'cable', 'loop', 'pattern'] },
  { slug: 'birds', name: 'Bird watching', words: ['sparrow', 'heron', 'nest', 'binocular', 'migration', 'feather', 'wing', 'owl', 'hide', 'song'] },
  { slug: 'chess', name: 'Chess openings', words: ['pawn', 'bishop', 'knight', 'castle', 'gambit', 'endgame', 'rook', 'queen', 'check', 'opening'] },
  { slug: 'cars', name: 'Classic cars', words: ['engine', 'chrome', 'gearbox', 'coupe', 'restoration', 'carburettor', 'tyre', 'bonnet', 'clutch', 'rally'] },
  { slug: 'tea', name: 'Tea tasting', words: ['leaf', 'oolong', 'brew', 'kettle', 'aroma', 'infusion', 'cup', 'steep', 'green', 'blend'] },
];

/** A deterministic number in [0, n) from the page and a salt: the same site every run. */
function pick(seed: number, salt: number, n: number): number {
  let x = (seed * 2654435761 + salt * 40503) >>> 0;
  x = (x ^ (x >>> 15)) >>> 0;
  x = Math.imul(x, 2246822519) >>> 0;
  x = (x ^ (x >>> 13)) >>> 0;
  return x % n;
}

interface Section {
  slug: string;
  name: string;
  words: string[];
  size: number;
}

/**
 * `pages` pages in all (the home page and ten sections), one section in ten relevant.
 * Page k of a section is `/<slug>/<k>` (`/a/<n>` with `vague`); page 0 is its index.
 */
export async function startTopicSite(pages: number, options: { vague?: boolean } = {}): Promise<TopicSite> {
  const perSection = Math.max(2, Math.floor((pages - 1) / (OTHERS.length + 1)));
  const sections: Section[] = [RELEVANT, ...OTHERS].map((s) => ({ ...s, size: perSection }));
  const total = 1 + perSection * sections.length;
  const hits = new Map<string, number>();
  const vague = options.vague === true;
  // Opaque numbers, not in section order, so no URL tells a section.
  const pathOf = (s: Section, k: number) => (vague ? `/a/${(sections.indexOf(s) + k * sections.length) * 7919 + 11}` : `/${s.slug}/${k}`);
  const byPath = new Map(sections.flatMap((s) => Array.from({ length: s.size }, (_, k) => [pathOf(s, k), { section: s, k }] as const)));
  const relevant = new Set(Array.from({ length: perSection }, (_, k) => pathOf(sections[0]!, k)));

  const title = (s: Section, k: number) => (k === 0 ? `${s.name}: all articles` : `${s.name}, part ${k}: ${s.words[k % s.words.length]} and ${s.words[(k * 3 + 1) % s.words.length]}`);
  const link = (s: Section, k: number) => (vague ? `${title(s, k)}: <a href="${pathOf(s, k)}">read more</a>` : `<a href="${pathOf(s, k)}">${title(s, k)}</a>`);
  const menu = `<nav><ul>${sections.map((s, i) => `<li><a href="${pathOf(s, 0)}">${vague ? `section ${i + 1}` : s.name}</a></li>`).join('')}</ul></nav>`;
  const paragraph = (s: Section, seed: number) =>
    `<p>${Array.from({ length: 60 }, (_, i) => (i % 3 === 2 ? 'the' : s.words[pick(seed, i, s.words.length)])).join(' ')}.</p>`;

  const page = (s: Section, k: number): string => {
    const seed = sections.indexOf(s) * 100_000 + k;
    const children = [2 * k + 1, 2 * k + 2].filter((c) => c < s.size);
    // Cross-links into other sections; one in ten goes into the relevant one, as a site's "see also" would.
    const cross = [0, 1, 2].map((salt) => {
      const other = pick(seed, 100 + salt, 10) === 0 ? sections[0]! : sections[1 + pick(seed, 200 + salt, OTHERS.length)]!;
      return other === s ? undefined : link(other, 1 + pick(seed, 300 + salt, other.size - 1));
    });
    return `<!doctype html><html><head><title>${title(s, k)}</title></head><body>${menu}<main><article>
<h1>${title(s, k)}</h1>${paragraph(s, seed)}${paragraph(s, seed + 7)}
<ul>${children.map((c) => `<li>${link(s, c)}</li>`).join('')}</ul>
</article><aside><h2>Elsewhere on the site</h2><ul>${cross.filter(Boolean).map((a) => `<li>${a}</li>`).join('')}</ul></aside></main></body></html>`;
  };
  const home = `<!doctype html><html><head><title>Hobby pages</title></head><body>${menu}<main><h1>Hobby pages</h1>
<ul>${sections.map((s) => `<li>${link(s, 0)}</li>`).join('')}</ul></main></body></html>`;

  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === '/robots.txt') return res.writeHead(404).end();
    const found = byPath.get(path);
    if (path !== '/' && !found) return res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>none</body></html>');
    hits.set(path, (hits.get(path) ?? 0) + 1);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(found ? page(found.section, found.k) : home);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    pages: total,
    relevant,
    query: 'solar panel installation',
    hits,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
