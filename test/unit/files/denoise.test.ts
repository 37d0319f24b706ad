/** Speckle removal before OCR: a 3×3 median on grey. */
import { describe, expect, it } from 'vitest';
import { createCanvas } from '@napi-rs/canvas';
import { denoiseForOcr, medianGrey } from '../../../scraper/files/denoise.js';
import { imageSize } from '../../../scraper/files/image-size.js';

/** An RGBA image from a grid of grey values. */
function rgba(rows: number[][]): Uint8Array {
  return Uint8Array.from(rows.flat().flatMap((v) => [v, v, v, 255]));
}

describe('median filter', () => {
  it('removes an isolated speck, and keeps a stroke three pixels wide', () => {
    const speck = [
      [255, 255, 255, 255, 255],
      [255, 255, 255, 255, 255],
      [255, 255, 0, 255, 255],
      [255, 255, 255, 255, 255],
      [255, 255, 255, 255, 255],
    ];
    expect([...medianGrey(rgba(speck), 5, 5)].every((v) => v === 255)).toBe(true);
    const stroke = Array.from({ length: 5 }, () => [255, 0, 0, 0, 255]);
    const out = medianGrey(rgba(stroke), 5, 5);
    expect([...out.slice(10, 15)]).toEqual([255, 0, 0, 0, 255]);
  });

  it('turns colour into grey by luma', () => {
    expect([...medianGrey(Uint8Array.from(Array.from({ length: 9 }, () => [255, 0, 0, 255]).flat()), 3, 3)]).toEqual(Array(9).fill(76));
  });
});

describe('image size from the header', () => {
  it('reads PNG, JPEG and WebP headers as the canvas writes them', async () => {
    const canvas = createCanvas(37, 21);
    canvas.getContext('2d').fillRect(0, 0, 10, 10);
    for (const type of ['image/png', 'image/jpeg', 'image/webp'] as const) {
      expect(imageSize(canvas.toBuffer(type as 'image/png'))).toEqual({ width: 37, height: 21 });
    }
  });

  it('leaves an image that declares a billion pixels undecoded, whatever its bytes', async () => {
    const png = createCanvas(4, 4).toBuffer('image/png');
    png.writeUInt32BE(40_000, 16);
    png.writeUInt32BE(40_000, 20);
    expect(await denoiseForOcr(png)).toBe(png);
    // A header cut short has no size, and is not decoded either.
    expect(imageSize(png.subarray(0, 10))).toBeUndefined();
  });
});
