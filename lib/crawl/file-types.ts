/**
 * Extensions of links the crawler never follows: nothing in them becomes a Document and each
 * would cost a fetch. PDFs (and office documents) are absent on purpose: they are scraped.
 */
const SKIPPED_EXTENSIONS: ReadonlySet<string> = new Set([
  // images
  'png', 'jpg', 'jpeg', 'gif', 'webp', 'avif', 'svg', 'ico', 'bmp', 'tif', 'tiff', 'heic', 'heif',
  // archives and compressed files
  'zip', 'rar', '7z', 'tar', 'gz', 'tgz', 'bz2', 'xz', 'zst', 'lz', 'lzma',
  // audio and video
  'mp3', 'mp4', 'm4a', 'm4v', 'wav', 'ogg', 'oga', 'ogv', 'flac', 'aac', 'opus', 'webm', 'mkv',
  'mov', 'avi', 'wmv', 'flv', 'mpg', 'mpeg', '3gp',
  // fonts
  'woff', 'woff2', 'ttf', 'otf', 'eot',
  // executables, installers, disk images, bytecode
  'exe', 'msi', 'dmg', 'pkg', 'apk', 'ipa', 'deb', 'rpm', 'bin', 'iso', 'img', 'jar', 'wasm',
  // stylesheets, scripts and source maps
  'css', 'js', 'mjs', 'cjs', 'map',
]);

/** Whether the last path segment's extension marks a file the crawler skips. */
export function isSkippedFileType(pathname: string): boolean {
  const segment = pathname.slice(pathname.lastIndexOf('/') + 1);
  const dot = segment.lastIndexOf('.');
  if (dot <= 0) return false;
  return SKIPPED_EXTENSIONS.has(segment.slice(dot + 1).toLowerCase());
}
