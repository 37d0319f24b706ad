/**
 * OpenDocument (ODT, ODS, ODP), EPUB and RTF, built in the test (test/helpers/office-fixtures.ts):
 * sniffed by their bytes, read into the markdown shapes of their Office siblings, and refused with
 * a 4xx when hostile (entities, zip bombs, repeat counts in the billions, endless nesting).
 */
import { randomBytes } from 'node:crypto';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { convertFile } from '../../../scraper/files/convert.js';
import { sniffFile } from '../../../scraper/files/sniff.js';
import { makeEpub, makeOdp, makeOds, makeOdt, makeRtf } from '../../helpers/office-fixtures.js';
import { conversionFailure as failure, fileContext, filePage } from './file-context.js';

const odt = makeOdt({
  heading: 'Quarterly report',
  paragraphs: ['Revenue grew &amp; costs fell.'],
  numbered: ['Plan', 'Build'],
  bullets: ['Apples', 'Pears'],
  link: { text: 'the site', href: 'https://example.com/odt' },
  table: [
    ['Region', 'Total'],
    ['North', '12'],
  ],
});
const ods = makeOds({ Sales: [['Region', 'Total'], ['North', 12], ['South', 7]], Costs: [['Item', 'Amount'], ['Rent', 3]] });
const odp = makeOdp([{ texts: ['Opening slide', 'First point'], notes: 'Remember the demo' }, { texts: ['Closing slide'] }]);
const epub = makeEpub('A Small Book', [
  { heading: 'Chapter One', text: 'It begins.' },
  { heading: 'Chapter Two', text: 'It ends.' },
]);
const rtf = makeRtf();

async function markdownOf(body: Buffer): Promise<string> {
  const converted = await convertFile(filePage(body), fileContext());
  return converted!.transformed.markdown!;
}

describe('sniffFile', () => {
  it("tells OpenDocument and EPUB zips apart by their mimetype entry, and RTF by {\\rtf, whatever they're called", () => {
    expect(sniffFile(odt, { contentType: 'application/zip', filename: 'a.docx' })).toBe('odt');
    expect(sniffFile(ods, { contentType: '' })).toBe('ods');
    expect(sniffFile(odp, { contentType: 'text/html' })).toBe('odp');
    expect(sniffFile(epub, { contentType: '', filename: 'book.zip' })).toBe('epub');
    expect(sniffFile(rtf, { contentType: 'text/plain', filename: 'notes.txt' })).toBe('rtf');
    // A zip whose mimetype names something else is no document Trawl reads.
    expect(sniffFile(Buffer.from(zipSync({ mimetype: strToU8('application/x-other') })), { contentType: '' })).toBeUndefined();
  });
});

describe('convertFile', () => {
  it('reads a text document (ODT) like a Word one: heading, paragraphs, numbered and bulleted lists, link, table', async () => {
    const markdown = await markdownOf(odt);
    expect(markdown).toContain('# Quarterly report');
    expect(markdown).toContain('Revenue grew & costs fell.');
    expect(markdown).toMatch(/1\.\s+Plan\n2\.\s+Build/);
    expect(markdown).toMatch(/-\s+Apples\n-\s+Pears/);
    expect(markdown).toContain('See [the site](https://example.com/odt) for more.');
    expect(markdown).toMatch(/\| Region \| Total \|\s+\| --- \| --- \|\s+\| North \| 12 \|/);
  });

  it('reads each sheet of an ODS spreadsheet as a table under its name, without its million empty rows', async () => {
    const converted = (await convertFile(filePage(ods), fileContext()))!;
    const markdown = converted.transformed.markdown!;
    expect(markdown).toMatch(/## Sales\s+\| Region \| Total \|\s+\| --- \| --- \|\s+\| North \| 12 \|\s+\| South \| 7 \|/);
    expect(markdown.indexOf('## Costs')).toBeGreaterThan(markdown.indexOf('## Sales'));
    expect(markdown).toContain('| Rent | 3 |');
    expect(markdown.split('\n').length).toBeLessThan(20);
    expect(converted.transformed.warning).toBeUndefined();
  });

  it('reads an ODP presentation as one section per slide, with its notes', async () => {
    const markdown = await markdownOf(odp);
    expect(markdown).toMatch(/## Slide 1\s+Opening slide\s+First point\s+### Notes\s+Remember the demo/);
    expect(markdown).toMatch(/## Slide 2\s+Closing slide/);
  });

  it("reads an EPUB's chapters in spine order, under the book's title", async () => {
    const converted = (await convertFile(filePage(epub), fileContext()))!;
    const markdown = converted.transformed.markdown!;
    expect(markdown).toMatch(/## Chapter One\s+It begins\.\s+## Chapter Two\s+It ends\./);
    expect(converted.transformed.metadata.title).toBe('A Small Book');
  });

  it('reads RTF: heading, code-page and Unicode text, lists, table and link; font tables and headers left out', async () => {
    const markdown = await markdownOf(rtf);
    expect(markdown).toMatch(/^# Annual review\n/);
    expect(markdown).toContain('Café sales rose €5 million.');
    expect(markdown).toMatch(/-\s+First bullet\n-\s+Second bullet/);
    expect(markdown).toMatch(/1\.\s+Step one/);
    expect(markdown).toMatch(/\| Region \| Total \|\s+\| --- \| --- \|\s+\| North \| 12 \|/);
    expect(markdown).toContain('Visit [example](https://example.com/rtf) today.');
    for (const hidden of ['Calibri', 'Hidden title', 'Page header text', 'Writer', 'HYPERLINK']) expect(markdown).not.toContain(hidden);
  });
});

describe('hostile files', () => {
  it('never reads a local file through an external entity in an ODT', async () => {
    const xxe = makeOdt({ heading: 'H', paragraphs: ['p'], prolog: '<!DOCTYPE office:document-content [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>', rawParagraph: 'a&xxe;b' });
    const err = await failure(xxe);
    expect(err.code).toBe('PARSE_FAILED');
    expect(err.message).not.toContain('root:');
  });

  it('refuses an OpenDocument zip bomb from its directory, as for Office files', async () => {
    const bomb = Buffer.from(
      zipSync({ mimetype: strToU8('application/vnd.oasis.opendocument.spreadsheet'), 'content.xml': [new Uint8Array(20 * 1024 * 1024), { level: 9 }] }),
    );
    expect(await failure(bomb)).toMatchObject({ code: 'PARSE_FAILED', message: expect.stringMatching(/zip bomb/) });
  });

  it('expands repeat counts in the billions no further than the table budget, and says the table was cut', async () => {
    const parts: Record<string, Uint8Array> = { mimetype: strToU8('application/vnd.oasis.opendocument.spreadsheet') };
    parts['content.xml'] = strToU8(
      '<office:document-content xmlns:office="o" xmlns:table="t" xmlns:text="x"><office:body><office:spreadsheet><table:table table:name="S">' +
        '<table:table-row table:number-rows-repeated="2000000000"><table:table-cell table:number-columns-repeated="2000000000"><text:p>x</text:p></table:table-cell></table:table-row>' +
        '</table:table></office:spreadsheet></office:body></office:document-content>',
    );
    const converted = (await convertFile(filePage(Buffer.from(zipSync(parts))), fileContext()))!;
    expect(converted.transformed.warning).toContain('cut short');
  });

  it('refuses a password-protected ODT and a DRM-encrypted EPUB with a clear PARSE_FAILED', async () => {
    const locked = unzipSync(odt);
    locked['META-INF/manifest.xml'] = strToU8(
      '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml">' +
        '<manifest:encryption-data manifest:checksum-type="SHA1/1K" manifest:checksum="x"/></manifest:file-entry></manifest:manifest>',
    );
    locked['content.xml'] = randomBytes(2000);
    expect(await failure(Buffer.from(zipSync(locked)))).toMatchObject({ code: 'PARSE_FAILED', message: expect.stringContaining('password-protected') });
    const drm = unzipSync(epub);
    drm['META-INF/encryption.xml'] = strToU8(
      '<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData>' +
        '<enc:CipherData><enc:CipherReference URI="OEBPS/text/ch1.xhtml"/></enc:CipherData></enc:EncryptedData></encryption>',
    );
    expect(await failure(Buffer.from(zipSync(drm)))).toMatchObject({ code: 'PARSE_FAILED', message: expect.stringContaining('encrypted (DRM)') });
  });

  it('refuses RTF nested deeper than any editor writes, and skips a \\bin run whatever it holds', async () => {
    const deep = Buffer.from(`{\\rtf1 ${'{'.repeat(5000)}x${'}'.repeat(5000)}}`);
    expect(await failure(deep)).toMatchObject({ code: 'PARSE_FAILED', message: expect.stringContaining('nests groups') });
    const binary = Buffer.from('{\\rtf1 before {\\*\\blipuid \\bin6 }}{{{ } after\\par}');
    expect(await markdownOf(binary)).toBe('before after');
  });
});
