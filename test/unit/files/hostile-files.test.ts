/**
 * Untrusted files, built in the test: zip bombs (by ratio, by total, and one whose headers lie about
 * its size), XML external entities and entity expansion in each Office format, corrupt and
 * encrypted containers. Each ends in a 4xx error code, never a hang, an exception of a library or
 * the content of a local file.
 */
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { convertFile } from '../../../scraper/files/convert.js';
import { readOfficeZip } from '../../../scraper/files/office-zip.js';
import { makeDocx, makePptx, makeXlsx, makeZipBomb } from '../../helpers/office-fixtures.js';
import { conversionFailure as failure, fileContext, filePage } from './file-context.js';

const XXE = (root: string) => `<!DOCTYPE ${root} [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>`;
const LAUGHS =
  '<!DOCTYPE w:document [<!ENTITY a "aaaaaaaaaa">' +
  ['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'].map((n, i) => `<!ENTITY ${n} "${`&${'abcdefgh'[i]};`.repeat(10)}">`).join('') +
  ']>';

/** Rewrites every declared uncompressed size of a one-entry-of-interest zip (local and central headers). */
function lieAboutSizes(zip: Buffer, entry: string, size: number): Buffer {
  const out = Buffer.from(zip);
  const name = Buffer.from(entry);
  for (let at = out.indexOf(name); at !== -1; at = out.indexOf(name, at + 1)) {
    if (out.readUInt32LE(at - 30) === 0x04034b50) out.writeUInt32LE(size, at - 30 + 22);
    if (out.readUInt32LE(at - 46) === 0x02014b50) out.writeUInt32LE(size, at - 46 + 24);
  }
  return out;
}

describe('zip bombs', () => {
  it('refuses an Office file that would inflate more than 150-fold past 10 MB', async () => {
    const bomb = makeZipBomb(20 * 1024 * 1024);
    expect(bomb.length).toBeLessThan(100_000);
    const err = await failure(bomb);
    expect(err.code).toBe('PARSE_FAILED');
    expect(err.message).toMatch(/inflate \d+-fold.*zip bomb/);
  });

  it('refuses one whose total uncompressed size passes the limit, from its directory alone', () => {
    const bomb = makeZipBomb(2 * 1024 * 1024);
    const limits = { maxEntries: 100, maxTotalBytes: 1024 * 1024, maxRatio: 1e9, ratioFloorBytes: 0 };
    expect(() => readOfficeZip(bomb, limits)).toThrow(/would inflate to \d+ bytes, more than the 1048576 allowed/);
  });

  it('inflates an entry that lies about its size no further than the size it declares', () => {
    const liar = lieAboutSizes(makeZipBomb(20 * 1024 * 1024), 'word/document.xml', 1000);
    let files: ReturnType<typeof readOfficeZip> | undefined;
    try {
      files = readOfficeZip(liar);
    } catch (err) {
      expect((err as { code: string }).code).toBe('PARSE_FAILED');
    }
    if (files) expect(files['word/document.xml']!.length).toBeLessThanOrEqual(1000);
  });

  it('refuses more entries than the limit', () => {
    const many = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`part${i}.xml`, strToU8('<x/>')]));
    const limits = { maxEntries: 10, maxTotalBytes: 1e9, maxRatio: 1e9, ratioFloorBytes: 0 };
    expect(() => readOfficeZip(Buffer.from(zipSync(many)), limits)).toThrow(/50 zip entries, more than the 10 allowed/);
  });
});

describe('XML entities', () => {
  it('never reads a local file through an external entity, in any Office format', async () => {
    const docx = makeDocx({ heading: 'H', paragraphs: ['p'], prolog: XXE('w:document'), rawRun: 'before&xxe;after' });
    const xlsxParts = unzipSync(await makeXlsx({ S: [['v']] }));
    xlsxParts['xl/sharedStrings.xml'] = strToU8(
      strFromU8(xlsxParts['xl/sharedStrings.xml']!).replace('<sst', `${XXE('sst')}<sst`).replace('>v<', '>v&xxe;<'),
    );
    const pptxParts = unzipSync(makePptx([{ texts: ['before&xxe;after'] }]));
    pptxParts['ppt/slides/slide1.xml'] = strToU8(strFromU8(pptxParts['ppt/slides/slide1.xml']!).replace('<p:sld', `${XXE('p:sld')}<p:sld`));
    for (const file of [docx, Buffer.from(zipSync(xlsxParts)), Buffer.from(zipSync(pptxParts))]) {
      const err = await failure(file);
      expect(err.code).toBe('PARSE_FAILED');
      expect(err.message).not.toContain('root:');
    }
  });

  it('does not expand nested entities (a billion laughs)', async () => {
    const err = await failure(makeDocx({ heading: 'H', paragraphs: ['p'], prolog: LAUGHS, rawRun: '&i;' }));
    expect(err.code).toBe('PARSE_FAILED');
  });
});

describe('corrupt and encrypted files', () => {
  it('refuses an Office file with damaged entries as PARSE_FAILED', async () => {
    const docx = makeDocx({ heading: 'H', paragraphs: ['p'] });
    const damaged = Buffer.concat([docx.subarray(0, 200), Buffer.alloc(300, 7), docx.subarray(500)]);
    const err = await failure(damaged);
    expect(err.code).toBe('PARSE_FAILED');
  });

  it('has no parser for an encrypted Office file (an OLE container, not a zip) or a truncated zip', async () => {
    const ole = Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(512)]);
    const docxType = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
    const docx = makeDocx({ heading: 'H', paragraphs: ['p'] });
    for (const body of [ole, docx.subarray(0, docx.length - 40)]) {
      await expect(convertFile(filePage(body, docxType), fileContext())).rejects.toMatchObject({ code: 'SCRAPE_UNSUPPORTED_FILE_ERROR' });
    }
  });
});

describe('time budget', () => {
  it("stops parsing an Office file at the request's deadline, and when the page is cancelled", async () => {
    const docx = makeDocx({ heading: 'H', paragraphs: ['p'] });
    const late = fileContext({ limits: { deadline: Date.now() - 1, signal: new AbortController().signal } });
    await expect(convertFile(filePage(docx), late)).rejects.toMatchObject({ code: 'PARSE_FAILED', message: expect.stringMatching(/time budget/) });
    const cancel = new AbortController();
    cancel.abort(new Error('cancelled by the test'));
    const cancelled = fileContext({ limits: { deadline: Date.now() + 60_000, signal: cancel.signal } });
    await expect(convertFile(filePage(docx), cancelled)).rejects.toThrow('cancelled by the test');
  });
});
