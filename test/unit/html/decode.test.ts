import { describe, expect, it } from 'vitest';
import { decodeBody } from '../../../scraper/html/decode.js';

// Each sample: the text, its bytes in a legacy encoding, and that encoding's label.
const samples = [
  { label: 'Shift_JIS', text: '日本語のページ', bytes: [0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea, 0x82, 0xcc, 0x83, 0x79, 0x81, 0x5b, 0x83, 0x57] },
  { label: 'GBK', text: '中文网页', bytes: [0xd6, 0xd0, 0xce, 0xc4, 0xcd, 0xf8, 0xd2, 0xb3] },
  { label: 'windows-1251', text: 'Привет', bytes: [0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2] },
  { label: 'ISO-8859-1', text: 'Café crème', bytes: [0x43, 0x61, 0x66, 0xe9, 0x20, 0x63, 0x72, 0xe8, 0x6d, 0x65] },
];

function page(head: string, bytes: number[]): Buffer {
  return Buffer.concat([Buffer.from(`<html><head>${head}</head><body><p>`), Buffer.from(bytes), Buffer.from('</p></body></html>')]);
}

describe('decodeBody', () => {
  for (const { label, text, bytes } of samples) {
    it(`decodes ${label} named in the Content-Type header`, () => {
      expect(decodeBody(page('', bytes), `text/html; charset=${label}`)).toContain(`<p>${text}</p>`);
    });

    it(`decodes ${label} named only in <meta charset>`, () => {
      expect(decodeBody(page(`<meta charset="${label}">`, bytes), 'text/html')).toContain(`<p>${text}</p>`);
    });

    it(`decodes ${label} named only in <meta http-equiv>`, () => {
      const meta = `<meta http-equiv="Content-Type" content="text/html; charset=${label}">`;
      expect(decodeBody(page(meta, bytes), undefined)).toContain(`<p>${text}</p>`);
    });
  }

  it('reads bytes with no charset signal as UTF-8 when they are valid UTF-8', () => {
    for (const { text } of samples) {
      expect(decodeBody(page('', [...Buffer.from(text)]), 'text/html')).toContain(`<p>${text}</p>`);
    }
  });

  it('falls back to windows-1252 for invalid UTF-8 with no charset signal', () => {
    const latin1 = samples.find((s) => s.label === 'ISO-8859-1');
    expect(decodeBody(page('', latin1?.bytes ?? []), undefined)).toContain('<p>Café crème</p>');
    expect(decodeBody(Buffer.from([0x93, 0x68, 0x69, 0x94]), undefined)).toBe('\u201chi\u201d');
  });

  it('lets a BOM win over a contradicting header and strips it', () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<p>Grüße</p>')]);
    expect(decodeBody(body, 'text/html; charset=iso-8859-1')).toBe('<p>Grüße</p>');
  });

  it('lets the header win over a contradicting <meta>', () => {
    const body = page('<meta charset="shift_jis">', [...Buffer.from('Grüße')]);
    expect(decodeBody(body, 'text/html; charset="utf-8"')).toContain('<p>Grüße</p>');
  });

  it('treats a label the standard maps to "replacement" as no signal instead of failing', () => {
    expect(decodeBody(Buffer.from('<p>Grüße</p>'), 'text/html; charset=iso-2022-kr')).toBe('<p>Grüße</p>');
  });

  it('ignores an unknown charset label and keeps sniffing', () => {
    const gbk = samples.find((s) => s.label === 'GBK');
    const body = page('<meta charset="gbk">', gbk?.bytes ?? []);
    expect(decodeBody(body, 'text/html; charset=no-such-charset')).toContain('<p>中文网页</p>');
  });
});
