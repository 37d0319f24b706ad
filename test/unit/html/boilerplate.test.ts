import { describe, expect, it } from 'vitest';
import { transformHtml } from '../../../scraper/html/transform.js';
import { options } from './helpers.js';

const URL = 'https://news.example.com/2025/05/harbour-bridge';
const PARAGRAPHS = [
  'The harbour bridge reopened on Monday after eighteen months of repairs, and traffic returned to its old levels within hours.',
  'Engineers replaced the main cables, which had corroded faster than anyone expected, and rebuilt the deck in sections.',
  'The city council said the final cost came in under budget, a rare outcome for a project of this size and complexity.',
  'Commuters who had spent a year and a half on detour buses said the difference to their mornings was hard to overstate.',
  'Shop owners on both ends of the bridge reported their busiest Monday since the closure, with queues out of the door by nine.',
  'The next inspection is due in five years, and the council has set money aside for it, so the work will not fall behind again.',
];

const paragraphs = (from: number, to?: number) => PARAGRAPHS.slice(from, to).map((p) => `<p>${p}</p>`).join('\n');

/** A page whose article the scorer picks, with `body` as the article's body. */
function page(body: string, bodyClass = 'entry-content'): string {
  return `<html><head><title>Harbour bridge reopens</title></head><body>
    <nav><a href="/">Home</a> <a href="/news">News</a></nav>
    <article><h1>Harbour bridge reopens</h1><div class="${bodyClass}">${body}</div></article>
    <footer>Copyright 2025 Example News</footer>
  </body></html>`;
}

/** The article with `extra` after its paragraphs. */
const article = (extra: string) => page(`${paragraphs(0)}\n${extra}`);

const markdownOf = (html: string) => transformHtml(html, URL, options()).markdown ?? '';

describe('boilerplate inside the chosen article', () => {
  it('drops a block whose class names it as related links, even when another class word looks like content', () => {
    const markdown = markdownOf(
      article(`<div class="content-related-stories"><h3>Related</h3><ul>
        <li><a href="/a">Ferry timetable changes for the summer season</a></li>
        <li><a href="/b">New cycle lanes planned along the waterfront</a></li>
        <li><a href="/c">The old tram depot will become a market hall next spring</a></li>
        <li><a href="/d">Council approves the budget for the eastern sea wall repairs</a></li>
        <li><a href="/e">Night buses return to the airport route after a two-year gap</a></li>
      </ul></div>`),
    );
    for (const p of PARAGRAPHS) expect(markdown).toContain(p);
    expect(markdown).not.toContain('Ferry timetable');
  });

  it('drops a newsletter box named as such, though it has no links', () => {
    const markdown = markdownOf(
      article('<div class="newsletter-signup"><p>Get the best of our local reporting in your inbox every week, free of charge.</p></div>'),
    );
    expect(markdown).toContain(PARAGRAPHS[3]);
    expect(markdown).not.toContain('in your inbox');
  });

  it('drops an editorial disclaimer named as such', () => {
    const markdown = markdownOf(
      page(`${paragraphs(0, 3)}<div class="editorial-disclaimer"><p>Note: the advertising policy below does not apply to this article, which our newsroom wrote.</p></div>${paragraphs(3)}`),
    );
    expect(markdown).not.toContain('advertising policy');
    for (const p of PARAGRAPHS) expect(markdown).toContain(p);
  });

  it('keeps a named block that holds most of the article: it is the article, whatever its name', () => {
    const markdown = markdownOf(article(`<div class="story-tags-enabled">${PARAGRAPHS.map((p) => `<p>${p} Again.</p>`).join('\n')}</div>`));
    for (const p of PARAGRAPHS) expect(markdown).toContain(`${p} Again.`);
  });
});

describe('bylines by their words', () => {
  it('drops a short "By …" line whatever holds it, and keeps a sentence that opens with "By"', () => {
    const markdown = markdownOf(
      page(`<p>By Sarah Pritchard, Local Democracy Reporter · 15:20, 2 May 2014</p>${paragraphs(0, 3)}<p>By Monday, the bridge was full again.</p>${paragraphs(3)}`),
    );
    expect(markdown).not.toContain('Sarah Pritchard');
    expect(markdown).toContain('By Monday, the bridge was full again.');
    expect(markdown).toContain(PARAGRAPHS[5]);
  });

  it('keeps list items and table rows that open with "By" and a name: they are items, not bylines', () => {
    const markdown = markdownOf(
      page(
        `${paragraphs(0, 3)}<ul><li>By Car</li><li>By Train</li><li>By Bus</li></ul>` +
          `<table><tr><th>Route</th><th>Time</th></tr><tr><td>By Rail</td><td>2 hours</td></tr><tr><td>By Road</td><td>3 hours</td></tr></table>${paragraphs(3)}`,
      ),
    );
    for (const item of ['By Car', 'By Train', 'By Bus', 'By Rail', 'By Road', '2 hours', '3 hours']) expect(markdown).toContain(item);
  });
});

describe('links to other articles', () => {
  /** `block` between the article's paragraphs, where the tail rules do not reach. */
  const between = (block: string) => page(`${paragraphs(0, 3)}${block}${paragraphs(3)}`);

  it('drops a link line whose label ends in a colon ("Lea:")', () => {
    const markdown = markdownOf(between('<p><strong>Lea: <a href="/x">El puerto amplía su horario de verano</a></strong></p>'));
    expect(markdown).not.toContain('El puerto');
    expect(markdown).toContain(PARAGRAPHS[3]);
  });

  it('drops promo lines in capitals that are all link between the story\'s paragraphs, and "Don\'t miss" link lines', () => {
    const markdown = markdownOf(
      page(`${paragraphs(0, 2)}<p><strong><a href="/x">FERRY STRIKE: CREWS VOTE TO WALK OUT OVER THE SUMMER TIMETABLE</a></strong></p>
        ${paragraphs(2, 3)}<p><strong>DON'T MISS</strong> <a href="/z">Night buses return to the airport route</a></p>${paragraphs(3)}`),
    );
    expect(markdown).not.toContain('FERRY STRIKE');
    expect(markdown).not.toContain('Night buses');
    expect(markdown).toContain(PARAGRAPHS[3]);
  });

  it('keeps a link in capitals that is only part of its line, a short acronym link, and one that opens the article', () => {
    const markdown = markdownOf(
      page(`<p><a href="/results">CLICK FOR THE FULL REGATTA RESULTS</a></p>${paragraphs(0, 3)}<p>The <a href="/nhs">NHS TRUST FOR THE HARBOUR DISTRICT</a> has opened a clinic on the south pier, near the new ferry terminal.</p><p><a href="/un">UNESCO</a></p>${paragraphs(3)}`),
    );
    expect(markdown).toContain('FULL REGATTA RESULTS');
    expect(markdown).toContain('NHS TRUST');
    expect(markdown).toContain('UNESCO');
  });

  it('drops the links that a "Related" heading or a "Don\'t miss" label right before them announces', () => {
    const markdown = markdownOf(
      between(`<h3>Related links</h3><ul><li><a href="/a">Port authority website</a></li></ul>
        <p><strong>DON'T MISS</strong></p><p><a href="/b">Ferry strike called off</a> [VIDEO]<br><a href="/c">Sea wall repairs approved by the council</a> [INSIGHT]</p>`),
    );
    expect(markdown).not.toContain('Port authority');
    expect(markdown).not.toContain('Ferry strike');
    expect(markdown).toContain(PARAGRAPHS[3]);
  });

  it('keeps a list of links after a heading that does not announce other stories', () => {
    const markdown = markdownOf(between(`<h3>Where to park</h3><ul><li><a href="/a">North car park</a></li><li><a href="/b">Ferry terminal car park</a></li></ul>`));
    expect(markdown).toContain('North car park');
  });

  it('drops a line of tag links (rel="tag") of any length, and keeps a line of ordinary links', () => {
    const tags = ['harbour bridge', 'bridge repairs', 'city council', 'commuters', 'detour buses', 'south pier', 'cables', 'deck', 'inspection', 'budget', 'transport', 'ferries'];
    const markdown = markdownOf(between(`<p><strong>Tags</strong><br>${tags.map((t) => `<a href="/tag/${t.replace(' ', '-')}" rel="tag">${t}</a>`).join(', ')}</p><p><a href="/timetable">Ferry timetable</a>, <a href="/fares">fares</a></p>`));
    expect(markdown).not.toContain('transport');
    expect(markdown).toContain('Ferry timetable');
    expect(markdown).toContain(PARAGRAPHS[3]);
  });

  it('drops a list of links of any length that opens with a "Read more" label', () => {
    const items = ['Ferry timetable changes for the summer season', 'New cycle lanes planned along the waterfront', 'The old tram depot will become a market hall next spring', 'Council approves the budget for the eastern sea wall repairs', 'Night buses return to the airport route after a two-year gap'];
    const markdown = markdownOf(between(`<div><p>Read more:</p><ul>${items.map((t, i) => `<li><a href="/${i}">${t}</a></li>`).join('')}</ul></div>`));
    expect(markdown).not.toContain('Ferry timetable');
    expect(markdown).not.toContain('Night buses');
    expect(markdown).toContain(PARAGRAPHS[3]);
  });
});

describe('embeds', () => {
  it('keeps an article that holds a few embeds, and cleans it as usual', () => {
    // Counting the embeds took the whole article out, and the retry that followed kept everything, links included.
    const markdown = markdownOf(
      page(`${paragraphs(0, 3)}<div><a href="/t/1">Bridges</a> <a href="/t/2">Ferries</a> <a href="/t/3">Council</a></div>
        <p>The first ferry skipper to cross under the new deck posted a video of it, which the port authority shared.</p>
        <iframe src="https://video.example/1"></iframe><iframe src="https://video.example/2"></iframe>${paragraphs(3)}`),
    );
    expect(markdown).toContain('The first ferry skipper');
    expect(markdown).toContain(PARAGRAPHS[5]);
    expect(markdown).not.toContain('Ferries');
  });

  it('drops a block with an embed and little else', () => {
    const markdown = markdownOf(page(`${paragraphs(0, 3)}<div><iframe src="https://ads.example/1"></iframe><p>Sponsored clip</p></div>${paragraphs(3)}`));
    expect(markdown).not.toContain('Sponsored clip');
    expect(markdown).toContain(PARAGRAPHS[3]);
  });
});

describe('share prompts', () => {
  it('drops a share prompt that opens or closes on the verb, and keeps a sentence that introduces a list', () => {
    const markdown = markdownOf(
      page(`${paragraphs(0, 2)}<p>Share this story with your friends and family:</p><p>Den Artikel mit anderen teilen/diskutieren:</p>
        <p>The council will share the findings:</p><ul><li>cables</li><li>deck</li></ul>${paragraphs(2)}`),
    );
    expect(markdown).not.toContain('Share this story');
    expect(markdown).not.toContain('Den Artikel');
    expect(markdown).toContain('The council will share the findings:');
  });
});

describe('credits', () => {
  it('drops a credit line and a caption that ends in its credit, wherever they sit in the article', () => {
    const markdown = markdownOf(
      page(`${paragraphs(0, 2)}<p>(Credit: Jane Doe / Example News)</p>
        <div><img src="/bridge.jpg"><div class="media-text">The bridge at dawn on its first day back. | © Harbour Authority/Getty Images</div></div>
        ${paragraphs(2)}`),
    );
    expect(markdown).not.toContain('Credit: Jane Doe');
    expect(markdown).not.toContain('The bridge at dawn');
    for (const p of PARAGRAPHS) expect(markdown).toContain(p);
  });

  it("drops the staff's credit, and keeps a sentence about who reported what", () => {
    const markdown = markdownOf(
      page(`${paragraphs(0, 3)}<p>The inspectors' reporting by email reached the council on Friday.</p>${paragraphs(3)}
        <p>(Reporting by Jane Doe; Additional reporting by John Roe; Editing by Tom Brown)</p>
        <p>Associated Press writer Ann Poe contributed to this report.</p>`),
    );
    expect(markdown).not.toContain('Jane Doe');
    expect(markdown).not.toContain('Ann Poe');
    expect(markdown).toContain("The inspectors' reporting by email");
    for (const p of PARAGRAPHS) expect(markdown).toContain(p);
  });

  it('keeps a figure caption, short or long, and a WordPress caption, in place: they are content (issue #37)', () => {
    const long = 'Figure 4: The south pier during the last week of works. '.repeat(7);
    const markdown = markdownOf(
      page(
        `${paragraphs(0, 2)}<figure><img src="/pier.jpg"><figcaption>${long}</figcaption></figure>${paragraphs(2, 4)}` +
          `<div class="wp-caption aligncenter"><img src="/crane.jpg"><p class="wp-caption-text">The crane that lifted the last span.</p></div>${paragraphs(4)}`,
      ),
    );
    expect(long.length).toBeGreaterThan(300);
    expect(markdown).toContain(long.trim().split('. ')[0]);
    expect(markdown).toContain('The crane that lifted the last span.');
    expect(markdown.indexOf('The south pier')).toBeLessThan(markdown.indexOf(PARAGRAPHS[2]!));
    for (const p of PARAGRAPHS) expect(markdown).toContain(p);
  });

  it('keeps a sign that only looks like a credit inside a sentence', () => {
    const markdown = markdownOf(page(`${paragraphs(0, 2)}<p>The contractor, <strong>Brückenbau©</strong>, said it would bid for the next job.</p>${paragraphs(2)}`));
    expect(markdown).toContain('**Brückenbau©**, said it would bid');
  });
});

describe('datelines', () => {
  it('drops a dateline with its lead-in inside the article, and keeps a live blog\'s hours', () => {
    const markdown = markdownOf(
      page(`<div class="dates">Updated 5:27 am CST, Wednesday, November 20, 2019</div>${paragraphs(0, 3)}<p>4:14 p.m.</p>${paragraphs(3)}`),
    );
    expect(markdown).not.toContain('Updated 5:27');
    expect(markdown).toContain('4:14 p.m.');
    for (const p of PARAGRAPHS) expect(markdown).toContain(p);
  });
});

describe('page furniture', () => {
  it('drops an "Advert" label and a reading-time estimate, and keeps a sentence about minutes', () => {
    const markdown = markdownOf(
      page(`<div class="meta">Estimated reading time: 6 minutes</div><p>5 min read</p>${paragraphs(0, 3)}<div>Advert</div>
        <p>The crossing now takes 5 minutes.</p>${paragraphs(3)}`),
    );
    expect(markdown).not.toContain('reading time');
    expect(markdown).not.toContain('min read');
    expect(markdown).not.toContain('Advert');
    expect(markdown).toContain('The crossing now takes 5 minutes.');
    for (const p of PARAGRAPHS) expect(markdown).toContain(p);
  });
});

describe('galleries', () => {
  it("drops a gallery's counter, however its parts are split, and keeps a sentence that counts images", () => {
    const markdown = markdownOf(
      page(`${paragraphs(0, 2)}<div class="gallery"><img src="/a.jpg"><div class="nav-stats"><span>Image </span>
        <span>1</span> <span> of </span> <span>23</span></div></div><p>Bild 2 von 10</p>
        <p>Photo 3 of 12 shows the deck before the works, as the council's archive keeps it.</p>${paragraphs(2)}`),
    );
    expect(markdown).not.toMatch(/Image\s+1/);
    expect(markdown).not.toContain('Bild 2 von 10');
    expect(markdown).toContain('Photo 3 of 12 shows the deck');
    for (const p of PARAGRAPHS) expect(markdown).toContain(p);
  });
});

describe("the article's tail", () => {
  const CLOSING = 'The mayor thanked the crews who worked through two winters to finish the job, and promised a plaque on the south pier.';

  it('drops short lines that do not end as a sentence and link lines after the last paragraph, inside wrappers too', () => {
    const markdown = markdownOf(
      article(`<div class="wrap"><p>${CLOSING}</p><p>Photos by Jane Doe for Example News</p></div>
        <p>Filed under: <a href="/t/bridges">Bridges</a>, <a href="/t/transport">Transport</a></p>`),
    );
    expect(markdown).toContain(CLOSING);
    for (const p of PARAGRAPHS) expect(markdown).toContain(p);
    expect(markdown).not.toContain('Photos by Jane Doe');
    expect(markdown).not.toContain('Filed under');
  });

  it('keeps a short last sentence, a short last list, and a short line before more prose', () => {
    const markdown = markdownOf(
      article(`<p>Photos by Jane Doe for Example News</p>
        <p>The bridge opens to cyclists next week.</p>
        <ul><li>Cables</li><li>Deck</li><li>Lights</li></ul>`),
    );
    expect(markdown).toContain('Photos by Jane Doe');
    expect(markdown).toContain('The bridge opens to cyclists next week.');
    expect(markdown).toMatch(/- +Cables\n- +Deck\n- +Lights/);
  });

  it('keeps a long run of short lines whole: results or items are content, not a tail of metadata', () => {
    const lines = Array.from({ length: 12 }, (_, i) => `<p>Line ${i + 1} of the results table from the regatta</p>`).join('\n');
    const markdown = markdownOf(article(lines));
    expect(markdown).toContain('Line 1 of the results');
    expect(markdown).toContain('Line 12 of the results');
  });

  it('drops a longer run of lines that are each a link to another story, as a run of plain short lines is not', () => {
    const stories = ['Ferry timetable changes', 'New cycle lanes planned', 'Tram depot becomes a market', 'Sea wall repairs approved', 'Night buses return', 'Lighthouse opens again'];
    const markdown = markdownOf(article(`<p>${CLOSING}</p>${stories.map((s, i) => `<p><a href="/story-${i}">${s}</a></p>`).join('')}`));
    expect(markdown).toContain(CLOSING);
    for (const s of stories) expect(markdown).not.toContain(s);
  });

  it('drops calls to follow, subscribe or send tips after the last paragraph, though they are sentences', () => {
    const prompts = [
      '<p><em>Have a tip? Jane Doe may be reached at <a href="mailto:jane@example.com">jane@example.com</a>. Follow her on Twitter <a href="https://twitter.com/janedoe">@janedoe</a>.</em></p>',
      '<p>There is plenty more where that came from. Sign up for <a href="/newsletter">The Harbour Daily</a> to get the free newsletter in your inbox.</p>',
      '<p>Follow us on <a href="/fb">Facebook</a> and <a href="/tw">Twitter</a>, and join our forums to keep talking about the city.</p>',
    ];
    // Twice the paragraphs: the tail may take at most a quarter of the article.
    const markdown = markdownOf(article(`${paragraphs(0)}<p>${CLOSING}</p>${prompts.join('')}`));
    expect(markdown).toContain(CLOSING);
    for (const gone of ['Have a tip', 'Sign up for', 'Follow us']) expect(markdown).not.toContain(gone);
  });

  it('keeps a last paragraph that only mentions following or subscribing', () => {
    const last = 'Commuters can follow the works on the council website, where the engineers post a short update every Friday, and subscribe to alerts about lane closures.';
    const markdown = markdownOf(article(`<p>${last}</p>`));
    expect(markdown).toContain(last);
  });

  it('keeps footnotes that end in their link back to the text', () => {
    const markdown = markdownOf(
      article(`<section class="footnotes" role="doc-endnotes"><hr><ol>
        <li id="fn1"><p>Built in 1932. <a href="#fnref1">↩︎</a></p></li>
        <li id="fn2"><p>Per the 2024 survey. <a href="#fnref2">↩</a></p></li>
      </ol></section>`),
    );
    expect(markdown).toContain('Built in 1932.');
    expect(markdown).toContain('Per the 2024 survey.');
  });

  it('leaves the last line of a short page alone: a form answer or a counter is its content', () => {
    const markdown = markdownOf(page(`<p>${PARAGRAPHS[0]}</p><p>You wrote: hello from trawl</p>`));
    expect(markdown).toContain('You wrote: hello from trawl');
  });
});
