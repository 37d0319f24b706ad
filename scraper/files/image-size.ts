/**
 * An image's size as its header declares it, read before anything is decoded: a few KB of PNG may
 * declare a billion pixels, which OCR must refuse rather than allocate.
 */

/** JPEG's start-of-frame markers, which carry the image's size (ITU T.81 B.1.1.3). */
const JPEG_FRAMES = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

/** Width and height as the image's header declares them; undefined when it cannot be read (TIFF among them). */
export function imageSize(b: Buffer): { width: number; height: number } | undefined {
  try {
    const tag = b.subarray(0, 4).toString('latin1');
    if (tag === '\x89PNG') return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
    if (tag.startsWith('GIF8')) return { width: b.readUInt16LE(6), height: b.readUInt16LE(8) };
    if (tag.startsWith('BM')) return { width: Math.abs(b.readInt32LE(18)), height: Math.abs(b.readInt32LE(22)) };
    if (tag === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP') {
      const chunk = b.subarray(12, 16).toString('latin1');
      if (chunk === 'VP8 ') return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
      if (chunk === 'VP8L') {
        const bits = b.readUInt32LE(21);
        return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
      }
      if (chunk === 'VP8X') return { width: b.readUIntLE(24, 3) + 1, height: b.readUIntLE(27, 3) + 1 };
      return undefined;
    }
    if (b[0] === 0xff && b[1] === 0xd8) {
      // Segments in order, each with its length, to the first frame header.
      for (let at = 2; at + 9 < b.length && b[at] === 0xff; at += 2 + b.readUInt16BE(at + 2)) {
        if (JPEG_FRAMES.has(b[at + 1]!)) return { width: b.readUInt16BE(at + 7), height: b.readUInt16BE(at + 5) };
      }
    }
  } catch {
    // A header cut short.
  }
  return undefined;
}
