/**
 * A line that is only a date: page metadata ("Published 4:00 am CST, Wednesday, November 20, 2019",
 * "Updated Nov. 19, 2019 8:21 am ET / Original Nov. 19, 2019 8:02 am ET", "12.10.2015, 19:16 Uhr"),
 * which the Document's metadata carries and human-marked article bodies leave out. Sites write
 * dates in too many orders for one pattern, so the line is read word by word instead: every word
 * must be a date's or time's, or a "published"/"updated" label.
 */

/** Longer than this, a line that mentions dates is a sentence, not a dateline. */
export const MAX_DATE_LINE = 100;

/** The lead-in that makes a line a dateline rather than a date in the article (an event's, a live blog's hour). */
const LABEL = /^(published|updated|posted|modified|original(ly)?|veröffentlicht|aktualisiert|publié|publicado|actualizado|atualizado)$/u;
const FILLER = /^(first|last|zuletzt|mis|à|jour|on|at|am|um|le|el|em|às|de|del|do|of|the|uhr|h)$/u;
const MONTH =
  /^(jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|sept?(ember)?|oct(ober)?|nov(ember)?|dec(ember)?|januar|februar|märz|mai|juni|juli|oktober|dezember|janvier|février|mars|avril|juin|juillet|août|septembre|octobre|novembre|décembre|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre|janeiro|fevereiro|março|maio|junho|julho|setembro|outubro|novembro|dezembro)\.?$/u;
const WEEKDAY =
  /^(mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(day|nesday|sday|urday|rsday)?\.?$|^(montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag|lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche|lunes|martes|miércoles|jueves|viernes|sábado|domingo|(segunda|terça|quarta|quinta|sexta)(-feira)?)$/u;
const NUMBER = /^\d{1,4}(st|nd|rd|th|\.)?$/u;
/** A time ("8:21", "19.16", "8:22am") or a numeric date ("12.10.2015", "2019-11-20", "2019-11-20t08:21:00z"). */
const DATE_OR_TIME = /^(\d{1,2}[:.h]\d{2}([ap]\.?m\.?)?|\d{1,2}[./]\d{1,2}[./]\d{2,4}|\d{4}-\d{2}-\d{2}(t[\d:.]+z?)?)$/u;
const MERIDIEM = /^[ap]\.?m\.?$/u;
/** Time zones are written in capitals ("ET", "CEST"); in lower case these would be words. */
const TIME_ZONE = /^[A-Z]{2,4}$/u;
/**
 * Without a lead-in, only one date (and its time, and its weekday before it: "Thursday 12 May 2011",
 * "Thursday, October 28, 2010", the date headers of old blog templates) makes a dateline: a range of dates or an hour on
 * its own is an event's or a live blog's, and the article's.
 */
const DATE_ONLY =
  /^(\p{L}+\.?,? )?(\d{1,2}[./-] ?(\d{1,2}|\p{L}+)[./-]? ?\d{2,4}|\d{1,2}(st|nd|rd|th)? \p{L}+\.? \d{4}|\p{L}+\.? \d{1,2}(st|nd|rd|th)?,? \d{4}|\d{4}-\d{2}-\d{2})([ ,T]+(at )?\d{1,2}[:.]\d{2}( ?[ap]\.?m\.?)?( ?uhr)?( [a-z]{2,4})?)?$/iu;
/** Not "/", "." or "-", which join a numeric date's parts ("05/10/2018"). */
const SEPARATORS = /[\s,|–—()]+/u;
/** What is left of a separator written with spaces around it (" / ", " - ") or after a label ("Updated:"). */
const PUNCTUATION = /^[-/]?$|:$/u;

/** Callers ask only about lines up to `MAX_DATE_LINE` characters. */
export function isDateLine(text: string): boolean {
  // Most short lines have no digit: they are answered without splitting them into words.
  if (!/\d/.test(text)) return false;
  let labelled = false;
  let dated = false;
  let month = false;
  let number = false;
  for (const part of text.trim().split(SEPARATORS)) {
    const word = part.replace(/:$/, '');
    if (PUNCTUATION.test(word) || TIME_ZONE.test(word)) continue;
    const lower = word.toLowerCase();
    if (DATE_OR_TIME.test(lower)) dated = true;
    else if (MONTH.test(lower)) month = true;
    else if (NUMBER.test(lower)) number = true;
    else if (LABEL.test(lower)) labelled = true;
    else if (!(WEEKDAY.test(lower) || MERIDIEM.test(lower) || FILLER.test(lower))) return false;
  }
  // A month's name alone ("May", "March") is a word or a heading; with a day or a year it is a date.
  return (dated || (month && number)) && (labelled || DATE_ONLY.test(text.trim()));
}
