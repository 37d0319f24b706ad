/**
 * The failure classes of issue #37, one small page each: a fix for each class must keep the post
 * and leave the rest out, by structure and semantics rather than by a site's class names.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { transformHtml } from '../../../scraper/html/transform.js';
import { options } from './helpers.js';

const PAGE_URL = 'https://blog.example.com/2012/03/post.html';
const markdownOf = (html: string) => transformHtml(html, PAGE_URL, options()).markdown ?? '';

const POST = [
  'After eleven years with the same pair of amber bulbs, I replaced them with a cheap LED strip rated for ortho and multigrade papers.',
  'Nothing showed after eight minutes under the light, not even a ghost of the coin, and the room is about twice as bright as it used to be.',
  'The strip cost less than one of the old bulbs, but test your own paper: some warm-tone papers are far more sensitive to the red end.',
];
const COMMENT = (i: number) =>
  `Comment number ${i}: I tried a generic red strip a couple of years ago, and it fogged my paper badly within three minutes, so your last point is a serious one, and worth repeating to anyone who asks.`;

function page(body: string, title: string = 'LED safelights in the darkroom'): string {
  return `<html><head><title>${title} | Silver and Salt</title></head><body>${body}</body></html>`;
}

describe('comments found by what they are', () => {
  it('leaves out schema.org Comment items, whatever their class names say', () => {
    const notes = [1, 2, 3, 4, 5]
      .map((i) => `<div class="note" itemprop="comment" itemscope itemtype="http://schema.org/Comment"><span itemprop="author">Reader ${i}</span><div itemprop="text"><p>${COMMENT(i)}</p></div></div>`)
      .join('');
    const markdown = markdownOf(page(`<div class="col"><div><h1>LED safelights in the darkroom</h1>${POST.map((p) => `<p>${p}</p>`).join('')}</div><div class="notes-block">${notes}</div></div>`));
    for (const p of POST) expect(markdown).toContain(p);
    expect(markdown).not.toContain('Comment number');
  });

  it('leaves out a thread of repeated blocks that each carry a reply link', () => {
    const items = [1, 2, 3, 4, 5]
      .map((i) => `<div class="item"><p class="who"><strong>Reader ${i}</strong> wrote on 12 May 2011:</p><p>${COMMENT(i)}</p><p class="act"><a href="#respond">reply</a></p></div>`)
      .join('');
    const markdown = markdownOf(page(`<div id="body"><div class="post"><h1>LED safelights in the darkroom</h1>${POST.map((p) => `<p>${p}</p>`).join('')}</div><div id="answers">${items}</div></div>`));
    for (const p of POST) expect(markdown).toContain(p);
    expect(markdown).not.toContain('Comment number');
  });

  // Old blog templates lay the whole page out in tables; a thread there is still a thread.
  it('leaves out both kinds inside a layout table too', () => {
    const post = `<h1>LED safelights in the darkroom</h1>${POST.map((p) => `<p>${p}</p>`).join('')}`;
    const schemaNotes = [1, 2, 3]
      .map((i) => `<div itemscope itemtype="https://schema.org/Comment"><span itemprop="author">Reader ${i}</span><p itemprop="text">${COMMENT(i)}</p></div>`)
      .join('');
    const replies = [4, 5, 6, 7, 8]
      .map((i) => `<div class="item"><p class="who"><strong>Reader ${i}</strong> wrote on 12 May 2011:</p><p>${COMMENT(i)}</p><p class="act"><a href="#respond">reply</a></p></div>`)
      .join('');
    const markdown = markdownOf(page(`<table width="760"><tr><td valign="top">${post}${schemaNotes}<div id="answers">${replies}</div></td></tr></table>`));
    for (const p of POST) expect(markdown).toContain(p);
    expect(markdown).not.toContain('Comment number');
  });
});

describe('sidebars and related blocks', () => {
  it('does not let a laxer retry trade a short post for the sidebar widget it dropped', () => {
    const events = 'Seed swap, Saturday 6 November, 10am to 1pm at the community hall, with saved seed in labelled envelopes, and please write the year you saved it, the variety, and where it grew, on the front of each one.';
    const html = page(
      `<div id="main-wrapper"><div class="post"><h3>LED safelights in the darkroom</h3><div class="post-body">${POST.join('<br><br>')}</div></div></div>` +
        `<div id="sidebar-wrapper"><div class="sidebar section"><div class="widget Text"><h2>Dates for the diary</h2><div class="widget-content">${events}<br><br>${events}<br><br>${events}</div></div></div></div>`,
      // A page title the post's heading does not repeat: the post is found by the scorer alone.
      'Silver and Salt',
    );
    const markdown = markdownOf(html);
    for (const p of POST) expect(markdown).toContain(p);
    expect(markdown).not.toContain('Seed swap');
  });

  it('keeps a short story over the larger block of story cards after it, and leaves the cards out', () => {
    const card = (i: number) =>
      `<div class="story-card"><a href="/news/${i}"><img src="/n${i}.jpg"></a><h3><a href="/news/${i}">Other story number ${i} about the council</a></h3><p>A summary of the other story, with enough words, commas, places and names in it to outscore the short story above it, as teasers do.</p></div>`;
    const html = page(
      `<div class="primary"><div class="article"><h1>LED safelights in the darkroom</h1><div class="body">${POST.map((p) => `<p>${p}</p>`).join('')}</div></div>` +
        `<div class="more"><h2>More from this area</h2>${[1, 2, 3, 4, 5].map(card).join('')}</div></div>`,
    );
    const markdown = markdownOf(html);
    for (const p of POST) expect(markdown).toContain(p);
    expect(markdown).not.toContain('Other story number');
  });
});

describe('story cards inside the article', () => {
  it('leaves out a block of cards of other stories that sits inside the article\'s own container', () => {
    const card = (i: number) =>
      `<div class="c"><h3><a href="/news/${i}">Other story number ${i}</a></h3><p>A summary of the other story, with enough words in it to keep its link density under a fifth, as teasers with a long standfirst do.</p></div>`;
    const long = POST.map((p) => `<p>${p} ${p}</p>`).join('');
    const markdown = markdownOf(page(`<div class="article"><h1>LED safelights in the darkroom</h1>${long}<div class="box">${[1, 2, 3].map(card).join('')}</div></div>`));
    for (const p of POST) expect(markdown).toContain(p);
    expect(markdown).not.toContain('Other story number');
  });
});

describe('link-list posts', () => {
  it('keeps a post that is a list of links when it sits under the post\'s title', () => {
    const links = ['The forgotten women who mapped the ocean floor', 'What happens to the clothes you return', 'A year of eating only what grows within fifty miles', 'Inside the last factory that still makes typewriter ribbons', 'Why bridges sing in the wind', 'How a village saved its pub', 'The economics of the ice cream van'];
    const cards = [1, 2, 3, 4]
      .map((i) => `<div class="mini"><h4><a href="/r/${i}">Weekend reading, week ${i}</a></h4><p>Ice roads, the smell of old books, a village pub, and a very patient octopus in week ${i}.</p></div>`)
      .join('');
    const html = page(
      `<div id="left"><div class="post hentry"><h1>Weekend reading, 22 June</h1><div class="story"><p>Five things worth your time.</p><ol>${links.map((l, i) => `<li><a href="/ext/${i}">${l}</a></li>`).join('')}</ol></div></div><div class="also"><h3>You might also like</h3>${cards}</div></div>`,
      'Weekend reading, 22 June',
    );
    const markdown = markdownOf(html);
    for (const l of links) expect(markdown).toContain(l);
    expect(markdown).not.toContain('patient octopus');
  });
});

describe('link roundups and the site\'s name in the title', () => {
  const items = ['A visual guide to the Unicode normalisation forms', 'Why your SQLite inserts are slow', 'The history of the tab key', 'Debugging a memory leak in a long-running daemon', 'Colour schemes for terminals, tested for colour blindness'];
  const roundup = (title: string) =>
    page(
      `<div id="header"><h1><a href="/">Bits and Bobs</a></h1></div><div id="main"><div class="post"><h2>Links for 2011-02-17</h2><div class="content"><ul class="links">${items
        .map((t, i) => `<li><div class="link"><a href="/ext/${i}">${t}</a></div><div class="note">Worth a read.</div></li>`)
        .join('')}</ul></div></div></div>`,
      title,
    );

  it('keeps the links of a list kept whole, not only the notes between them', () => {
    // A Delicious daily-links post (test/fixtures/fidelity/failure-classes): each item is a link, a note and tags.
    const html = readFileSync(new URL('../../fixtures/fidelity/failure-classes/delicious-link-list-post/source.html', import.meta.url), 'utf8');
    const markdown = markdownOf(html);
    for (const t of ['A visual guide to the Unicode normalisation forms', 'Why your SQLite inserts are slow', 'A gentle introduction to Bloom filters']) expect(markdown).toContain(t);
    expect(markdown).not.toContain('Blogroll');
  });

  it('does not bring back the site\'s logo heading as the title when the page title names the site beside the post', () => {
    const markdown = markdownOf(roundup('Bits and Bobs: Links for 2011-02-17'));
    expect(markdown).not.toContain('Bits and Bobs');
  });
});

describe('layout tables', () => {
  it('takes the post\'s column of a page laid out in a table, not the row with the bio column beside it', () => {
    const bio = 'I am a retired engineer living in a small village in Shropshire. This weblog is mostly about the village, the church, the bells and the clock, and whatever else I find myself fixing on a Saturday.';
    const html = page(
      `<table width="100%"><tr><td colspan="2"><font size="6">Tower Notes</font></td></tr><tr><td width="180"><font size="1"><b>ABOUT ME</b><br>${bio}<br><br><a href="/l/1">Ringing World</a><br><a href="/l/2">Village website</a></font></td>` +
        `<td><font size="2"><b>Saturday, June 14, 2003</b><br><br>${POST.join('<br><br>')}<br><br><font size="1">posted by Geoff at 6:42 PM</font></font></td></tr></table>`,
      'Tower Notes',
    );
    const markdown = markdownOf(html);
    for (const p of POST) expect(markdown).toContain(p);
    expect(markdown).not.toContain('retired engineer');
  });
});

describe('table-bodied posts', () => {
  it('takes the post whose body is a data table over a wrapper named for the content that also holds the prose sidebar', () => {
    const names = ['Sam Okafor', 'Liam Byrne', 'Rachel Hughes', 'Tomasz Nowak', 'Ian Fletcher', 'Grace Lim', 'Daniel Price', 'Alison Mackay', 'Chris Dale', 'Fatima Noor', 'Peter Walsh', 'Megan Rees', 'John Carver', 'Ruth Ellis'];
    const rows = names.map((name, i) => `<tr><td>${i + 1}</td><td>${name}</td><td>Senior</td><td>${33 + i}:12</td></tr>`).join('');
    const about = [
      'Our club is a friendly running club for adults of every ability, from people finishing their first 5K to runners chasing a marathon qualifying time.',
      'We meet on Tuesday and Thursday evenings at the leisure centre, with groups running at different paces so that nobody is left behind, and on Sundays for a longer run.',
      'Membership costs thirty pounds a year, which includes affiliation to the national athletics body and a discount at the sports shop on the high street.',
    ];
    const html = `<html><head><title>Spring 10K results | Harriers</title></head><body>
      <div id="page-body"><div class="col-a"><div class="item"><h1>Spring 10K results</h1>
        <p>Thanks to everyone who ran, marshalled and baked for Sunday's race. The course was two laps of the park, cold but dry. Full results are below.</p>
        <table><thead><tr><th>Pos</th><th>Name</th><th>Category</th><th>Time</th></tr></thead><tbody>${rows}</tbody></table>
        <p>The next race is the summer relay on 24 June.</p></div></div>
      <div class="col-b"><div class="box"><h3>About the club</h3>${about.map((p) => `<p>${p}</p>`).join('')}</div></div></div>
    </body></html>`;
    const markdown = markdownOf(html);
    expect(markdown).toContain('| 14 | Ruth Ellis | Senior | 46:12 |');
    expect(markdown).toContain('summer relay');
    expect(markdown).not.toContain('Membership costs');
  });
});

describe('blocks of other posts announced by their heading', () => {
  const teaser = (i: number) =>
    `Teaser ${i}: another long post from the archive about printing at home, cut off after its first few sentences so that readers click through to the rest of it, which is how the site counts its readers and sells its advertising …`;
  const cards = () =>
    [1, 2, 3, 4].map((i) => `<article class="box post-${i}"><a href="/post-${i}"><img src="/p${i}.jpg"></a><p>${teaser(i)}</p><p><a href="/share?p=${i}">Share</a></p></article>`).join('');

  it('leaves out a block opened by a "you may like" heading, even when it outweighs the post', () => {
    for (const heading of ['You may like...', 'Você pode gostar...', 'Te puede interesar']) {
      const post = `<article class="box"><h1>LED safelights in the darkroom</h1>${POST.map((p) => `<p>${p}</p>`).join('')}</article>`;
      const markdown = markdownOf(page(`<div id="primary">${post}<div class="box"><h3>${heading}</h3>${cards()}</div></div>`));
      for (const p of POST) expect(markdown).toContain(p);
      expect(markdown).not.toContain('Teaser');
    }
  });

  it('keeps a section headed "Related work" whose items are the article\'s own paragraphs', () => {
    const related = [1, 2, 3].map((i) => `<p>Related study ${i}: an earlier survey of darkroom lighting, <a href="/ref${i}">published in 1998</a>, measured the fogging of ortho papers under LED and sodium lamps and found the same threshold as this one.</p>`).join('');
    const markdown = markdownOf(page(`<article><h1>LED safelights in the darkroom</h1>${POST.map((p) => `<p>${p}</p>`).join('')}<section><h2>Related work</h2>${related}</section></article>`));
    expect(markdown).toContain('Related study 3');
  });
});

describe('copies of a block the page shows by script', () => {
  const CAPTION = 'The new LED strip above the enlarger, photographed with the room lights off and a sheet of ortho paper on the baseboard.';

  it('keeps one copy of a caption repeated in full, truncated behind a "more" toggle, and again in a gallery panel', () => {
    const shown = `<div class="caption-full">${CAPTION}<a class="toggle"> less</a></div><div class="caption-truncated">${CAPTION.slice(0, 100)}<a class="toggle"> ... more</a></div>`;
    const gallery = `<ul class="gallery"><li><img src="/strip.jpg" alt="LED strip"><div class="cap">${shown}</div></li></ul><div class="panel"><div class="remote">${shown}</div></div>`;
    const markdown = markdownOf(page(`<article><h1>LED safelights in the darkroom</h1>${gallery}${POST.map((p) => `<p>${p}</p>`).join('')}</article>`));
    for (const p of POST) expect(markdown).toContain(p);
    expect(markdown.split('photographed with the room lights off').length - 1).toBe(1);
    expect(markdown).not.toMatch(/\b(less|more)\s*$/m);
  });

  it('keeps one of two renditions of a short caption shown one after the other under different names', () => {
    const twins = `<div class="caption-full">${CAPTION}</div><div class="caption-truncated">${CAPTION}</div>`;
    const markdown = markdownOf(page(`<article><h1>LED safelights in the darkroom</h1><figure><img src="/strip.jpg">${twins}</figure>${POST.map((p) => `<p>${p}</p>`).join('')}</article>`));
    expect(markdown.split('photographed with the room lights off').length - 1).toBe(1);
  });
});

describe('the article\'s wrapper beside link lists and share buttons', () => {
  it('keeps the paragraphs of a wrapper that also holds share icons and a list of other stories, and drops those', () => {
    const icons = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((i) => `<img src="/icon-${i}.png">`).join('');
    const stories = [1, 2, 3, 4, 5, 6, 7, 8].map((i) => `<li><a href="/story-${i}">Another story number ${i} from the same section of the site</a></li>`).join('');
    const wrapper = `<div class="clearfix"><div class="by">By Jane Doe</div>${POST.map((p) => `<p>${p}</p>`).join('')}<div class="bar">${icons}</div><div class="more"><h3>More from the section</h3><ul>${stories}</ul></div></div>`;
    // The photo's caption and the standfirst sit outside the wrapper: the scorer picks the story around both.
    const photo = '<div class="image"><p>The new strip above the enlarger, with the room lights off, a sheet of ortho paper on the baseboard, and a coin on the paper, as in the usual safelight test.</p></div>';
    const standfirst = '<div class="standfirst"><p>Cheap, bright, and, as it turns out, safe for most papers, though not all of them, so test yours before you throw the old bulbs away.</p></div>';
    const markdown = markdownOf(page(`<div id="main"><div class="story"><h1>LED safelights in the darkroom</h1>${photo}${standfirst}<div class="tools">${icons}</div>${wrapper}</div></div>`));
    for (const p of POST) expect(markdown).toContain(p);
    expect(markdown).not.toContain('Another story number');
    expect(markdown).not.toContain('icon-1.png');
  });
});
