import { describe, expect, it } from 'vitest';
import { isDateLine } from '../../../scraper/html/date-line.js';

describe('date lines', () => {
  it('recognises a dateline in the orders sites write them, with its lead-in', () => {
    for (const line of [
      'Updated 5:27 am CST, Wednesday, November 20, 2019',
      'Updated Nov. 19, 2019 8:21 am ET / Original Nov. 19, 2019 8:02 am ET',
      'PUBLISHED: 10:48, Tue, Nov 19, 2019 | UPDATED: 11:05, Tue, Nov 19, 2019',
      'Published November 20th, 2019 - 07:50 GMT',
      'Updated at 1:23 p.m.',
      'First Published: Tuesday, November 19, 2019 08:38 AM',
      'Veröffentlicht am 3. März 2020',
      '12.10.2015, 19:16 Uhr',
      '05/10/2018',
      'Nov 19, 2019',
      'Thursday 12 May 2011',
      'Thursday, October 28, 2010',
      '14th March 2012',
    ]) {
      expect(isDateLine(line), line).toBe(true);
    }
  });

  it("leaves the article's own dates and lines with more than a date alone", () => {
    for (const line of [
      '4:14 p.m.', // a live blog's hour, without a lead-in
      '29 November 2018 | 20 January 2019', // an event's dates
      'May',
      'In 2019',
      'Published',
      'On May 3 the council met.',
      'Posted on Tuesday 15 October 2019 at 09:11 by Bradley M. Kuhn.',
    ]) {
      expect(isDateLine(line), line).toBe(false);
    }
  });
});
