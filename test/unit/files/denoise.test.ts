/** Speckle removal before OCR: a 3×3 median on grey. */
import { describe, expect, it } from 'vitest';
import { medianGrey } from '../../../scraper/files/denoise.js';

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
