/**
 * Boilerplate that sits inside a chosen article, recognised by its words or its class and id:
 * labels (advertising, loading, share bars, comment sections), lines that are only a date,
 * captions and photo credits, bylines, and short link lines announcing other articles. Most are
 * not in Readability; human-marked article bodies leave all of them out (see the fidelity bench).
 */
import { isDateLine, MAX_DATE_LINE } from './date-line.js';
import { classAndId, hasClassOrId, isTag, textContent, walkElements, type Element } from './dom.js';

/**
 * Not in Readability, whose `-ad-` needs hyphens on both sides: whole class/id tokens that name an
 * ad slot (`ad`, `ads`, `ad-inline`, `top_ad`, `adsbygoogle`...), never words that merely contain "ad".
 */
export const AD_TOKEN = /(?:^|\s)(?:ads?|advert|advertisement|adsbygoogle|sponsored|ads?[-_][\w-]*|[\w-]*[-_]ads?)(?:\s|$)/i;
const AD_WORDS = /^(ad(vert|vertising|vertisement)?|pub(licité)?|werb(ung)?|anzeige|广告|Реклама|Anuncio)$/iu;
/** Dashes, colons and bullets around a label ("- Anzeige -", "Advertisement:"). */
const LABEL_PUNCTUATION = /^[\s\-–—:·|•]+|[\s\-–—:·|•]+$/gu;
/**
 * Not in Readability: photo credits, the commonest boilerplate left inside a chosen article
 * ("Getty Images"). Captions themselves stay: they are the article's content (issue #37: figures
 * with captions are never lost to precision), though human-marked benchmark bodies leave them out.
 */
const CREDIT_TOKEN = /(?:^|\s|[-_])(?:credits?|photo-?credit|image-?credit|copyright)(?:\s|[-_]|$)/i;
/** A block named as a credit is one only up to this length. */
const MAX_CAPTION_TEXT = 300;
/**
 * Not in Readability: a credit line, whatever holds it: "(Credit: …)", "Photo: …", "Foto: …", or a
 * caption that ends in its credit ("… | © Getty Images", "… (AP Photo/Jane Doe)").
 */
const CREDIT_LINE =
  /^\(?(photo|image|picture|illustration|foto|bild|credit)s?( credits?)?( by)?\s*[:©]|(©|\bcopyright\b) ?[\p{L}\p{N}][^.!?]{0,60}\)?$|\([^()]*(\bphoto\b|getty images|shutterstock|istock)[^()]*\)$/iu;
/**
 * Not in Readability: a short link line announcing other articles ("Read also: …", "Lea también:
 * …", "Mehr zum Thema"), a heading that opens a block of them, or a block of links of any length
 * that opens with one.
 */
export const RELATED_LABEL =
  /^(read (also|more|next)|see also|related( (stories|articles|posts|content|links))?|more (on this|stories|from)|recommended|don'?t miss|you (may|might)( also)? like|lea (también|más)|lea:|vea también|ver también|(también )?te puede interesar|(artículos|noticias|entradas) relacionad[ao]s|você (também )?pode gostar|(leia|veja) também|(posts|artigos|notícias|matérias) relacionad[ao]s|lesen sie (auch|mehr)|mehr (zum thema|themen|dazu)|das könnte sie auch|weitere artikel|ähnliche artikel|à lire aussi|lire aussi|articles similaires|vous aimerez aussi|leggi anche|articoli correlati|(ti )?potrebbe interessarti)(?![\p{L}\p{N}])/iu;
const MAX_RELATED_TEXT = 250;
/**
 * Not in Readability: the wire services' and newspapers' staff credit ("Reporting by …; Editing by
 * …", "(Additional reporting by …)", "Associated Press writers … contributed to this report."),
 * which human-marked article bodies leave out. Like a caption, only up to `MAX_CAPTION_TEXT`.
 */
const STAFF_CREDIT = /^\(?((additional|further) )?(reporting|writing|editing|compiled|research) (and (writing|editing) )?by\b/iu;
const CONTRIBUTED = /\bcontributed (reporting|to this (report|story|article))\b[^.!?]*[.!)]*$/iu;
/** Readability's `_checkByline` test: the author line, which it takes out of the content. */
const BYLINE = /byline|author|dateline|writtenby|p-author/i;
const MAX_BYLINE_TEXT = 100;
/**
 * A byline by its words, whatever holds it ("By Sarah Pritchard, Reporter · 2 May 2014", "posted
 * by Geoff at 6:42 PM"): "by" and a capitalised name, on a short line that does not end as a
 * sentence does ("By Monday, the council will decide." does).
 */
const BYLINE_WORDS = /^(?:[Pp]osted |[Ww]ritten )?(?:[Bb]y|[Vv]on|[Pp]ar|[Pp]or|[Dd]i|[Dd]oor|[Aa]v) \p{Lu}/u;
const LOADING_WORDS = /^((loading|wird geladen|正在加载|Загрузка|chargement|cargando)(…|\.\.\.)?)$/iu;
/** A share bar's label ("Share this:", "Teilen mit:"), whatever holds it. */
const SHARE_LABEL = /^(share( this( (article|story|post))?)?( on| via| with)?|teilen( mit)?|diesen artikel teilen|partager|compartir|condividi)$/iu;
/**
 * A longer share prompt before the buttons, opening or closing on the verb and ending in a colon
 * ("Share this with your friends:", "Den Artikel mit anderen teilen/diskutieren:"), unlike a
 * sentence that introduces a list ("The council will share the findings:").
 */
const SHARE_PROMPT = /^(share|teile|partager|compartir|condividi)(?!\p{L})[^.!?]{0,60}:$|(?<!\p{L})(share|teilen|partager|compartir|condividere)(\/\p{L}+)?:$/iu;
const MAX_PROMPT_TEXT = 80;
/**
 * A script's show-more/show-less control ("... more", "less", "Read more" on a link to nowhere):
 * it expands a caption or a summary in place, and is no word of it.
 */
const TOGGLE_LABEL = /^(?:(?:\.\.\.|…)\s*)?(?:(?:read|show|see) )?(?:more|less)$/iu;
const NOWHERE = /^(?:#?|javascript:.*)$/i;
/** Comment-section prompts and states, and a lone credit label. */
const META_LABEL =
  /^(comments? (are )?closed|kommentare (sind )?geschlossen|leave a (comment|reply)|kommentar (schreiben|hinterlassen)|no comments( yet)?|\d+ (comments?|kommentare)|credits?|photo|foto|bild)$/iu;
/**
 * A reading-time estimate ("5 min read", "Estimated reading time: 6 minutes", "Tempo de leitura:
 * 2 minutos"): the page's furniture, which human-marked article bodies leave out.
 */
const READING_TIME =
  /^((estimated )?(reading time|read time|lesezeit|tempo de leitura|tiempo de lectura|temps de lecture) ?:? ?(about |ca\. |< ?)?\d+ ?(min(ute)?s?|minutos?|minuten)\.?|\d+ ?min(ute)?s?\.? (read|lesezeit|de leitura|de lectura|de lecture))$/iu;
/**
 * A gallery's counter ("Image 1 of 5", "Photo 3/10", "Bild 1 von 10"): the slideshow's controls, not
 * its pictures' captions; human-marked article bodies leave it out.
 */
const GALLERY_COUNTER = /^(image|photo|picture|slide|bild|foto|imagen)s?\s+\d+\s*(of|von|de|sur|\/)\s*\d+$/iu;
/**
 * Not in Readability, whose class weights let one positive word cancel a negative one
 * ("content-related-stories", "entry-tags"): whole class/id words that name a block around the
 * article rather than the article (related links, newsletter and subscription boxes, tag lists,
 * author boxes, share bars, comments, breadcrumbs, recommendation widgets, disclaimers).
 */
const BOILERPLATE_NAME =
  /(?:^|[\s_-])(?:related|recommend(?:ed|ations?)?|more-stories|read-?more|also-read|newsletter|subscribe|subscription|signup|sign-up|promo|tags?|tag-?list|tag-?cloud|author-?(?:bio|box|info|card)|about-?(?:the-)?author|bio|share|sharing|social|comments?|disqus|trending|popular|most-read|outbrain|taboola|byline|breadcrumbs?|disclaimer)(?=$|[\s_-])/i;
/** A named block holding more than this share of the chosen content is the article itself, whatever its name. */
const MAX_NAMED_SHARE = 0.3;
/**
 * Not in Readability: at the article's end, a line this short that does not end as a sentence
 * does (tags, "Filed under", credits, sign-offs, follow-us prompts), as human-marked article
 * bodies leave them out. Prose ends with punctuation; metadata does not.
 */
const MAX_TAIL_LINE = 100;
const SENTENCE_END = /[.!?…:;"'”’»)\]。！？」』）]$/u;
/** A footnote ends in its link back to the text ("↩", "↑", "^"), after its sentence's stop. */
const BACKLINK = /\s*[↩↑⤴^]\uFE0E?$/u;
/**
 * At the article's end, a call to the reader (follow the author, subscribe, sign up, send a tip,
 * get the app) is the site's, not the article's, even written as a sentence: a sentence that opens
 * with the imperative, or that gives the author's address. Human-marked bodies leave it out.
 */
const CALL_TO_ACTION =
  /(?:^|[.!?:]\s+)(?:follow (?:us|him|her|me|them)\b|sign up\b|subscribe\b|join our\b|click here\b|(?:download|get) (?:the|our)\b[^.!?]{0,40}\bapp\b|have a (?:news )?tip\b)|\b(?:may|can) be reached at\b/iu;
const MAX_CALL_TEXT = 300;
/**
 * A line in capitals that is all link is a promotion of another story or of the site's app ("CLICK
 * HERE TO GET THE NEWS APP", "STAR OPENS UP ABOUT HEALTH CONDITION") inserted between the
 * story's paragraphs: articles do not shout their own sentences. A line, not a link inside one;
 * ten capitals at least, so an acronym stays.
 */
const MIN_SHOUTED_LETTERS = 10;
const MAX_PROMO_TEXT = 200;
const PROMO_LINK_DENSITY = 0.9;

function isShoutedLink(words: string, figures: ElementFigures): boolean {
  if (figures.linkDensity < PROMO_LINK_DENSITY || figures.text > MAX_PROMO_TEXT) return false;
  return !/\p{Ll}/u.test(words) && (words.match(/\p{Lu}/gu)?.length ?? 0) >= MIN_SHOUTED_LETTERS;
}

/** The element interrupts prose: a paragraph on either side (a promotion inserted in the story). */
function isBetweenParagraphs(el: Element): boolean {
  const before = el.prev && sibling(el, 'prev');
  const after = el.next && sibling(el, 'next');
  return before?.name === 'p' && after?.name === 'p';
}

function sibling(el: Element, side: 'prev' | 'next'): Element | undefined {
  for (let node = el[side]; node; node = node[side]) if (isTag(node)) return node;
  return undefined;
}

/**
 * Links announced by the block right before them: a "Related links" heading or a "Don't miss"
 * label, and then the list or the line of links it announces, wherever it sits in the article.
 */
export function isAnnouncedLinks(el: Element, figures: ElementFigures): boolean {
  if (figures.linkDensity <= 0.5) return false;
  const before = sibling(el, 'prev');
  if (!before) return false;
  const label = textContent(before).trim().replace(LABEL_PUNCTUATION, '');
  return label.length > 0 && label.length < MAX_LABEL_TEXT && RELATED_LABEL.test(label);
}

/**
 * Links marked `rel="tag"` (HTML's keyword for a tag page; WordPress and Blogger mark theirs so)
 * are the post's tag or category list, not its words, when they carry most of a block's links.
 */
export function isTagList(el: Element, figures: ElementFigures): boolean {
  if (figures.linkDensity <= 0.5) return false;
  let tagged = 0;
  let all = 0;
  walkElements(el, (node) => {
    if (node.name !== 'a') return true;
    const length = textContent(node).trim().length;
    all += length;
    if (/(?:^|\s)tag(?:\s|$)/i.test(node.attribs.rel ?? '')) tagged += length;
    return false;
  });
  return all > 0 && tagged / all > 0.5;
}

/** The tail is trimmed only while it stays this small a share of the content: more is the article. */
export const MAX_TAIL_SHARE = 0.25;
/**
 * Tags, credits, sign-offs and follow-us prompts come a few at a time; a longer run of short lines
 * (results, items, a log) is the content itself, and is kept whole rather than cut short.
 */
export const MAX_TAIL_BLOCKS = 4;
/**
 * Below this much text (Readability's own bar for an article) the page is no article with a tail
 * of metadata: a short page's last line (a form's answer, a counter, a status) is its content.
 */
export const MIN_TAIL_ARTICLE_TEXT = 500;
const LISTS = new Set(['ul', 'ol', 'dl']);
/** Labels this short are judged by their words alone. */
const MAX_LABEL_TEXT = 40;

/** What the scorer knows of an element: its text length (as its statistics count it) and link density. */
export interface ElementFigures {
  text: number;
  linkDensity: number;
}

/** Where an element of the content sits, for isBoilerplateInContent. */
export interface ContentPlace extends ElementFigures {
  /** Inside a list or a data table: its short lines are items and cells ("By Car", "By Rail"), never bylines. */
  enumerated: boolean;
}

/** `el` (not a content root) is named as boilerplate and holds a small share of the content's `contentText`. */
export function isNamedBoilerplate(named: string, figures: ElementFigures, contentText: number): boolean {
  return figures.text <= contentText * MAX_NAMED_SHARE && BOILERPLATE_NAME.test(named);
}

/**
 * A block with nothing but boilerplate after it in the article: a link list, a heading that opens
 * nothing, a call to the reader, or a short line that does not end as a sentence does.
 */
export function isArticleTail(el: Element, figures: ElementFigures, text: () => string): boolean {
  if (figures.linkDensity > 0.5 || /^h[1-6]$/.test(el.name)) return true;
  if (figures.text < MAX_CALL_TEXT && !LISTS.has(el.name) && CALL_TO_ACTION.test(text())) return true;
  // A short list (steps, ingredients, sources) ends without punctuation as prose does not.
  return figures.text < MAX_TAIL_LINE && !LISTS.has(el.name) && !SENTENCE_END.test(text().replace(BACKLINK, ''));
}

/** The search for "contributed" runs only on lines that hold it: this test runs on most of the content's blocks. */
function isStaffCredit(line: string): boolean {
  return STAFF_CREDIT.test(line) || (line.includes('ontribut') && CONTRIBUTED.test(line));
}

function isBylineLine(line: string): boolean {
  return BYLINE_WORDS.test(line) && !SENTENCE_END.test(line);
}

/** An advertising or "loading" label alone ("- Anzeige -", "Advertisement:", "Loading…"). */
export function isAdOrLoadingLabel(text: string): boolean {
  const label = text.replace(LABEL_PUNCTUATION, '');
  return AD_WORDS.test(label) || LOADING_WORDS.test(label);
}

/** `text` is read only when the figures leave the question open. */
export function isBoilerplateInContent(el: Element, figures: ContentPlace, text: () => string): boolean {
  const { rel, itemprop } = el.attribs;
  const named = hasClassOrId(el) ? classAndId(el) : '';
  const byline = rel === 'author' || itemprop?.includes('author') || BYLINE.test(named);
  if (byline && figures.text > 0 && figures.text < MAX_BYLINE_TEXT) return true;
  if (CREDIT_TOKEN.test(named)) return figures.text <= MAX_CAPTION_TEXT;
  if (figures.text > MAX_CAPTION_TEXT) return figures.linkDensity > 0.5 && RELATED_LABEL.test(text());
  const words = text();
  if (CREDIT_LINE.test(words) || isStaffCredit(words.trim())) return true;
  if ((el.name === 'a' || el.name === 'button') && NOWHERE.test(el.attribs.href ?? '') && TOGGLE_LABEL.test(words.trim())) return true;
  if (figures.text > MAX_RELATED_TEXT) return figures.linkDensity > 0.5 && RELATED_LABEL.test(words);
  if (figures.text < MAX_PROMPT_TEXT && SHARE_PROMPT.test(words)) return true;
  if (el.name === 'p' && isShoutedLink(words, figures) && isBetweenParagraphs(el)) return true;
  if (figures.text < MAX_LABEL_TEXT) {
    const label = words.replace(LABEL_PUNCTUATION, '');
    if ([SHARE_LABEL, AD_WORDS, LOADING_WORDS, RELATED_LABEL, META_LABEL, GALLERY_COUNTER, READING_TIME].some((re) => re.test(label))) return true;
  }
  if (figures.text <= MAX_DATE_LINE && isDateLine(words)) return true;
  if (figures.text < MAX_BYLINE_TEXT && !figures.enumerated && !/^h[1-6]$/.test(el.name) && isBylineLine(words.trim())) return true;
  return RELATED_LABEL.test(words) && (/^h[2-6]$/.test(el.name) || figures.linkDensity > 0.5);
}
