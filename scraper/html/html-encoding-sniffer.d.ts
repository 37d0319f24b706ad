// html-encoding-sniffer ships no types; this covers the one call the decoder makes.
declare module 'html-encoding-sniffer' {
  interface SniffOptions {
    xml?: boolean;
    transportLayerEncodingLabel?: string;
    defaultEncoding?: string;
    maxPrescanBytes?: number;
  }
  /** WHATWG encoding sniffing: BOM, then the transport label, then the `<meta>` prescan, then the default. */
  function sniffHTMLEncoding(bytes: Uint8Array, options?: SniffOptions): string;
  export default sniffHTMLEncoding;
}
