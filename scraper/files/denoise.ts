/**
 * Speckle removal before OCR: the image in grey, through a 3×3 median filter. Dust, scanner
 * noise and JPEG specks are a pixel or two across, and Tesseract reads them as punctuation or
 * stray letters (on the parse bench's speckled renders, 8 % of characters wrong without it, 0.3 %
 * with it); strokes of text are wider than the window and keep their shape (clean renders: 0 %
 * and 0.15 %). It runs on the file's own thread (isolated.ts), before the image leaves it;
 * images past MAX_PIXELS go to OCR as they are, so the filter's time per image stays bounded.
 */
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { imageSize } from './image-size.js';

/** About 30 ms of filtering per megapixel here; 4 MP is a full page at 200 dpi. */
export const MAX_PIXELS = 4_000_000;

/** The median of a 3×3 window of `grey` around (x, y), edges repeated. */
function median3(grey: Uint8Array, width: number, height: number, x: number, y: number, window: Uint8Array): number {
  let k = 0;
  for (let dy = -1; dy <= 1; dy++) {
    const row = Math.min(height - 1, Math.max(0, y + dy)) * width;
    for (let dx = -1; dx <= 1; dx++) window[k++] = grey[row + Math.min(width - 1, Math.max(0, x + dx))]!;
  }
  return window.sort()[4]!;
}

/** The filtered grey values of an RGBA buffer. */
export function medianGrey(rgba: Uint8ClampedArray | Uint8Array, width: number, height: number): Uint8Array {
  const grey = new Uint8Array(width * height);
  for (let i = 0; i < grey.length; i++) grey[i] = (rgba[i * 4]! * 299 + rgba[i * 4 + 1]! * 587 + rgba[i * 4 + 2]! * 114) / 1000;
  const out = new Uint8Array(grey.length);
  const window = new Uint8Array(9);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) out[y * width + x] = median3(grey, width, height, x, y, window);
  return out;
}

/** The image as a filtered grey PNG, or as it came when it cannot be decoded here or is too large. */
export async function denoiseForOcr(image: Buffer): Promise<Buffer> {
  // Sized from its header before anything is decoded: a few KB of PNG may declare a billion pixels,
  // which the canvas would allocate outside the thread's heap limit.
  const declared = imageSize(image);
  if (!declared || declared.width * declared.height > MAX_PIXELS) return image;
  let decoded: Awaited<ReturnType<typeof loadImage>>;
  try {
    decoded = await loadImage(image);
  } catch {
    // Tesseract reads formats the canvas does not (TIFF); it gets those unfiltered.
    return image;
  }
  const { width, height } = decoded;
  if (width * height > MAX_PIXELS || width < 3 || height < 3) return image;
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d');
  context.fillStyle = '#fff';
  context.fillRect(0, 0, width, height);
  context.drawImage(decoded, 0, 0);
  const pixels = context.getImageData(0, 0, width, height);
  const filtered = medianGrey(pixels.data, width, height);
  for (let i = 0; i < filtered.length; i++) {
    pixels.data[i * 4] = pixels.data[i * 4 + 1] = pixels.data[i * 4 + 2] = filtered[i]!;
    pixels.data[i * 4 + 3] = 255;
  }
  context.putImageData(pixels, 0, 0);
  return canvas.toBuffer('image/png');
}
