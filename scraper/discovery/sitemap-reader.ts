/**
 * Reads one sitemap body incrementally: gzip is inflated chunk by chunk and fed to a streaming
 * parser, so a 50 MiB sitemap (or a gzip bomb) never sits in memory decompressed, and reading
 * stops at the size cap, the deadline, or when the caller has enough URLs.
 *
 * Formats (sitemaps.org): XML `<urlset>` and `<sitemapindex>` (any namespace prefix, CDATA, with
 * or without a `.gz` wrapper) and plain text with one URL per line. XML goes through sax in its
 * lenient mode because real sitemaps often carry unescaped `&` in URLs, which a strict parser
 * rejects halfway through. Anything whose root element is not `urlset`/`sitemapindex` (a soft-404
 * HTML page, an RSS feed) is reported as not a sitemap.
 */
import { StringDecoder } from 'node:string_decoder';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { createGunzip } from 'node:zlib';
import sax from 'sax';

export interface SitemapEntryHandlers {
  /** A page URL as written in `<loc>` or on a text line; return false to stop reading. */
  onPage(loc: string, lastmod: string | undefined): boolean;
  /** A child sitemap listed by a sitemap index. */
  onSitemap(loc: string): void;
}

export interface SitemapReadOptions {
  /** Cap on decompressed bytes read from this sitemap. */
  maxBytes: number;
  /** Epoch ms after which reading stops. */
  deadline: number;
}

/**
 * `complete`: read to the end. `stopped`: onPage asked to stop. `size-cap`, `deadline`: cut
 * short. `corrupt`: the gzip stream was damaged; entries before the damage were delivered.
 */
export type SitemapReadEnd = 'complete' | 'stopped' | 'size-cap' | 'deadline' | 'corrupt';

export interface SitemapReadResult {
  isSitemap: boolean;
  end: SitemapReadEnd;
}

interface SitemapSink {
  write(text: string): void;
  end(): void;
  /** Set once the rest of the body cannot matter. */
  readonly done: boolean;
  readonly stoppedByHandler: boolean;
  readonly isSitemap: boolean;
}

const CHUNK_BYTES = 64 * 1024;
// Reading is CPU-bound; let timers (activity heartbeats) run every few MiB.
const CHUNKS_PER_YIELD = 16;
// sitemaps.org caps URLs at 2,048 characters; a longer "line" is not a URL.
const MAX_TEXT_LINE = 8 * 1024;
const URL_LINE = /^https?:\/\/\S+$/i;

function localName(qualified: string): string {
  return qualified.slice(qualified.indexOf(':') + 1);
}

class XmlSitemapSink implements SitemapSink {
  done = false;
  stoppedByHandler = false;
  isSitemap = false;
  private readonly parser = sax.parser(false, { lowercase: true, trim: false, normalize: false });
  private readonly stack: string[] = [];
  private capturing: 'loc' | 'lastmod' | undefined;
  private text = '';
  private loc: string | undefined;
  private lastmod: string | undefined;

  constructor(private readonly handlers: SitemapEntryHandlers) {
    this.parser.onopentag = (tag) => this.open(localName(tag.name));
    this.parser.onclosetag = (name) => this.close(localName(name));
    this.parser.ontext = (text) => this.append(text);
    this.parser.oncdata = (text) => this.append(text);
    // Lenient mode still reports oddities it can recover from; carry on past them.
    this.parser.onerror = () => {
      (this.parser as { error: Error | null }).error = null;
      this.parser.resume();
    };
  }

  write(text: string): void {
    if (!this.done) this.parser.write(text);
  }

  end(): void {
    if (!this.done) this.parser.close();
  }

  private open(name: string): void {
    if (this.stack.length === 0) {
      this.isSitemap = name === 'urlset' || name === 'sitemapindex';
      if (!this.isSitemap) this.done = true;
    }
    const parent = this.stack.at(-1);
    this.stack.push(name);
    if (name === 'url' || name === 'sitemap') {
      this.loc = undefined;
      this.lastmod = undefined;
    } else if ((name === 'loc' || name === 'lastmod') && (parent === 'url' || parent === 'sitemap')) {
      this.capturing = name;
      this.text = '';
    }
  }

  private append(text: string): void {
    if (this.capturing) this.text += text;
  }

  private close(name: string): void {
    this.stack.pop();
    if (this.done) return;
    if (this.capturing === name) {
      const value = this.text.trim();
      if (name === 'loc') this.loc = value;
      else this.lastmod = value || undefined;
      this.capturing = undefined;
    } else if (name === 'url' && this.loc) {
      if (!this.handlers.onPage(this.loc, this.lastmod)) {
        this.done = true;
        this.stoppedByHandler = true;
      }
    } else if (name === 'sitemap' && this.loc) {
      this.handlers.onSitemap(this.loc);
    }
  }
}

class TextSitemapSink implements SitemapSink {
  done = false;
  stoppedByHandler = false;
  isSitemap = false;
  private partial = '';
  private skippingLongLine = false;

  constructor(private readonly handlers: SitemapEntryHandlers) {}

  write(text: string): void {
    const lines = (this.partial + text).split(/\r\n|\r|\n/);
    this.partial = lines.pop() ?? '';
    for (const line of lines) {
      if (this.skippingLongLine) this.skippingLongLine = false;
      else this.line(line);
      if (this.done) return;
    }
    if (this.partial.length > MAX_TEXT_LINE) {
      this.partial = '';
      this.skippingLongLine = true;
    }
  }

  end(): void {
    if (!this.done && !this.skippingLongLine) this.line(this.partial);
  }

  private line(line: string): void {
    const candidate = line.trim();
    if (!URL_LINE.test(candidate)) return;
    this.isSitemap = true;
    if (!this.handlers.onPage(candidate, undefined)) {
      this.done = true;
      this.stoppedByHandler = true;
    }
  }
}

/** Picks the parser from the first non-blank character: `<` is XML, anything else text. */
class SniffingSink implements SitemapSink {
  private inner: SitemapSink | undefined;
  private pending = '';

  constructor(private readonly handlers: SitemapEntryHandlers) {}

  get done(): boolean {
    return this.inner?.done ?? false;
  }

  get stoppedByHandler(): boolean {
    return this.inner?.stoppedByHandler ?? false;
  }

  get isSitemap(): boolean {
    return this.inner?.isSitemap ?? false;
  }

  write(text: string): void {
    if (this.inner) {
      this.inner.write(text);
      return;
    }
    this.pending += text;
    const first = this.pending.replace(/^\uFEFF/, '').trimStart()[0];
    if (first === undefined) return;
    this.inner = first === '<' ? new XmlSitemapSink(this.handlers) : new TextSitemapSink(this.handlers);
    this.inner.write(this.pending);
    this.pending = '';
  }

  end(): void {
    this.inner?.end();
  }
}

function isGzip(body: Buffer): boolean {
  return body.length >= 2 && body[0] === 0x1f && body[1] === 0x8b;
}

async function* decodedChunks(body: Buffer): AsyncGenerator<Buffer> {
  // The magic bytes decide, not a `.gz` name: servers often send `sitemap.xml.gz` with
  // Content-Encoding: gzip, so the HTTP client has already inflated it.
  if (!isGzip(body)) {
    for (let offset = 0; offset < body.length; offset += CHUNK_BYTES) {
      yield body.subarray(offset, offset + CHUNK_BYTES);
    }
    return;
  }
  const gunzip = createGunzip();
  gunzip.end(body);
  for await (const chunk of gunzip) yield chunk as Buffer;
}

/** Streams the body through the right parser, calling the handlers for each entry. */
export async function readSitemap(
  body: Buffer,
  opts: SitemapReadOptions,
  handlers: SitemapEntryHandlers,
): Promise<SitemapReadResult> {
  const sink = new SniffingSink(handlers);
  const decoder = new StringDecoder('utf8');
  const finish = (end: SitemapReadEnd): SitemapReadResult => ({ isSitemap: sink.isSitemap, end });
  let bytes = 0;
  let chunks = 0;
  try {
    for await (const chunk of decodedChunks(body)) {
      if (Date.now() >= opts.deadline) return finish('deadline');
      const room = opts.maxBytes - bytes;
      const piece = chunk.length > room ? chunk.subarray(0, room) : chunk;
      bytes += piece.length;
      sink.write(decoder.write(piece));
      if (sink.done) return finish(sink.stoppedByHandler ? 'stopped' : 'complete');
      if (piece.length < chunk.length) return finish('size-cap');
      if (++chunks % CHUNKS_PER_YIELD === 0) await yieldToEventLoop();
    }
  } catch {
    return finish('corrupt');
  }
  sink.write(decoder.end());
  sink.end();
  return finish(sink.stoppedByHandler ? 'stopped' : 'complete');
}
