/**
 * The `branding` format: the page's design tokens as Firecrawl's BrandingProfile, read from the
 * computed styles of the rendered page. It runs inside the page (Playwright serialises the
 * function), so it must use nothing from this module's scope.
 *
 * - colours: the body's background and text, links, the main button's background as `primary`,
 *   then the most used non-neutral colours of buttons, links and headings (secondary, accent);
 *   `colorScheme` from the background's luminance;
 * - logo, with the fallbacks users ask for: an <img> or inline <svg> marked as a logo (class, id,
 *   alt, aria-label) in the header or anywhere, then `apple-touch-icon`, then `og:image`, then the
 *   favicon; inline SVG comes back as a data: URI;
 * - typography: families of the body, headings and code, their stacks, sizes, line heights and
 *   weights; `fonts` lists the families used;
 * - spacing and components: the first primary-looking button, an outlined one, and an input.
 */

import type { Page } from '../../browser/browser-pool.js';

/** A page's answer is its own: a profile larger than this (a huge inline SVG logo) loses its logo. */
const MAX_BRANDING_CHARS = 200_000;

export interface BrandingProfile {
  colorScheme: 'light' | 'dark';
  brandName?: string;
  logo: string | null;
  fonts: { family: string }[];
  colors: Record<string, string>;
  typography: Record<string, unknown>;
  spacing: Record<string, unknown>;
  components: Record<string, Record<string, string>>;
  images: { logo: string | null; favicon: string | null; ogImage: string | null };
}

/** Evaluated in the page: no closures, no imports. */
export function readBranding(): BrandingProfile {
  const abs = (url: string | null | undefined) => {
    if (!url) return null;
    try {
      return new URL(url, document.baseURI).href;
    } catch {
      return null;
    }
  };
  const style = (el: Element | null) => (el ? getComputedStyle(el) : null);
  const rgb = (value: string | undefined | null): [number, number, number, number] | null => {
    const m = value?.match(/rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)/);
    return m ? [Number(m[1]), Number(m[2]), Number(m[3]), m[4] === undefined ? 1 : Number(m[4])] : null;
  };
  const hex = (value: string | undefined | null) => {
    const c = rgb(value);
    if (!c || c[3] === 0) return undefined;
    return `#${c
      .slice(0, 3)
      .map((n) => Math.round(n).toString(16).padStart(2, '0'))
      .join('')}`.toUpperCase();
  };
  const luminance = (h: string) => {
    const [r, g, b] = [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16) / 255);
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  };
  const neutral = (h: string) => {
    const [r, g, b] = [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16));
    return Math.max(r!, g!, b!) - Math.min(r!, g!, b!) < 24;
  };
  const visible = (el: Element) => {
    const box = el.getBoundingClientRect();
    return box.width > 0 && box.height > 0;
  };
  const firstFamily = (stack: string | undefined) => stack?.split(',')[0]?.trim().replace(/^["']|["']$/g, '');
  const stackOf = (stack: string | undefined) => (stack ?? '').split(',').map((f) => f.trim().replace(/^["']|["']$/g, '')).filter(Boolean);

  const bodyStyle = style(document.body);
  const background = hex(bodyStyle?.backgroundColor) ?? hex(style(document.documentElement)?.backgroundColor) ?? '#FFFFFF';
  const text = hex(bodyStyle?.color) ?? '#000000';
  const link = document.querySelector('a[href]');

  // Colours that carry the brand: backgrounds of buttons, colours of links and headings.
  const counts = new Map<string, number>();
  const count = (h: string | undefined, weight: number) => {
    if (h && !neutral(h) && h !== background) counts.set(h, (counts.get(h) ?? 0) + weight);
  };
  const buttons = [...document.querySelectorAll('button, a[class*="btn" i], a[class*="button" i], [role="button"], input[type="submit"]')].filter(visible).slice(0, 50);
  for (const b of buttons) count(hex(style(b)?.backgroundColor), 3);
  for (const a of [...document.querySelectorAll('a[href]')].slice(0, 200)) count(hex(style(a)?.color), 1);
  for (const h of [...document.querySelectorAll('h1, h2, h3, header, nav')].slice(0, 50)) {
    count(hex(style(h)?.color), 1);
    count(hex(style(h)?.backgroundColor), 2);
  }
  const ranked = [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([h]) => h);

  const isLogo = (el: Element) => /logo|brand/i.test(`${el.getAttribute('class') ?? ''} ${el.id} ${el.getAttribute('alt') ?? ''} ${el.getAttribute('aria-label') ?? ''} ${el.getAttribute('src') ?? ''}`);
  const logoIn = (root: ParentNode | null) => {
    if (!root) return null;
    for (const el of root.querySelectorAll('img, svg, a, div, span')) {
      if (!isLogo(el) && !(el.parentElement && isLogo(el.parentElement))) continue;
      if (el.tagName.toLowerCase() === 'img') return abs((el as HTMLImageElement).currentSrc || el.getAttribute('src'));
      const svg = el.tagName.toLowerCase() === 'svg' ? el : el.querySelector('svg');
      if (svg) return `data:image/svg+xml;utf8,${encodeURIComponent(svg.outerHTML)}`;
      const img = el.querySelector('img');
      if (img) return abs(img.currentSrc || img.getAttribute('src'));
    }
    return null;
  };
  const meta = (selector: string) => document.querySelector(selector)?.getAttribute('content') ?? document.querySelector(selector)?.getAttribute('href');
  const favicon = abs(meta('link[rel~="icon" i]')) ?? abs('/favicon.ico');
  const ogImage = abs(meta('meta[property="og:image"]'));
  const logo = logoIn(document.querySelector('header, nav, [role="banner"]')) ?? logoIn(document.body) ?? abs(meta('link[rel="apple-touch-icon" i], link[rel="apple-touch-icon-precomposed" i]')) ?? ogImage ?? favicon;

  const h1 = style(document.querySelector('h1'));
  const h2 = style(document.querySelector('h2'));
  const h3 = style(document.querySelector('h3'));
  const p = style(document.querySelector('p')) ?? bodyStyle;
  const small = style(document.querySelector('small, figcaption, .caption'));
  const code = style(document.querySelector('code, pre, kbd'));
  const families = [bodyStyle?.fontFamily, h1?.fontFamily, h2?.fontFamily, code?.fontFamily].map(firstFamily).filter((f): f is string => !!f);
  const ratio = (s: CSSStyleDeclaration | null) => {
    const lh = parseFloat(s?.lineHeight ?? '');
    const fs = parseFloat(s?.fontSize ?? '');
    return Number.isFinite(lh) && fs > 0 ? Math.round((lh / fs) * 100) / 100 : undefined;
  };
  const primaryButton = buttons.find((b) => hex(style(b)?.backgroundColor) && !neutral(hex(style(b)?.backgroundColor)!));
  const outlinedButton = buttons.find((b) => b !== primaryButton && !hex(style(b)?.backgroundColor));
  const input = [...document.querySelectorAll('input:not([type="hidden"]):not([type="submit"]), textarea')].find(visible);
  const tokens = (el: Element | undefined) => {
    const s = style(el ?? null);
    if (!s) return undefined;
    const entries = { background: hex(s.backgroundColor), textColor: hex(s.color), borderColor: s.borderTopWidth !== '0px' ? hex(s.borderTopColor) : undefined, borderRadius: s.borderTopLeftRadius };
    return Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== undefined)) as Record<string, string>;
  };
  const padding = primaryButton ? parseFloat(style(primaryButton)!.paddingTop) : NaN;
  const siteName = meta('meta[property="og:site_name"]') ?? document.title.split(/\s[|\-–—·]\s/).at(-1)?.trim();

  const components: Record<string, Record<string, string>> = {};
  const buttonPrimary = tokens(primaryButton);
  const buttonSecondary = tokens(outlinedButton);
  const inputTokens = tokens(input);
  if (buttonPrimary) components.buttonPrimary = buttonPrimary;
  if (buttonSecondary) components.buttonSecondary = buttonSecondary;
  if (inputTokens) components.input = inputTokens;

  const colors: Record<string, string> = { background, textPrimary: text };
  const linkColor = hex(style(link)?.color);
  if (linkColor) colors.link = linkColor;
  // The brand's action colour is its main button's, when it has one; the rest by how much they are used.
  const palette = [...new Set([buttonPrimary?.background, ...ranked].filter((c): c is string => !!c))];
  if (palette[0]) colors.primary = palette[0];
  if (palette[1]) colors.secondary = palette[1];
  if (palette[2]) colors.accent = palette[2];
  const secondaryText = hex(small?.color);
  if (secondaryText) colors.textSecondary = secondaryText;

  return {
    colorScheme: luminance(background) < 0.5 ? 'dark' : 'light',
    ...(siteName && { brandName: siteName }),
    logo,
    fonts: [...new Set(families)].map((family) => ({ family })),
    colors,
    typography: {
      fontFamilies: { primary: firstFamily(bodyStyle?.fontFamily), heading: firstFamily(h1?.fontFamily ?? bodyStyle?.fontFamily), ...(code && { code: firstFamily(code.fontFamily) }) },
      fontStacks: { primary: stackOf(bodyStyle?.fontFamily), heading: stackOf(h1?.fontFamily ?? bodyStyle?.fontFamily), body: stackOf(p?.fontFamily) },
      fontSizes: { ...(h1 && { h1: h1.fontSize }), ...(h2 && { h2: h2.fontSize }), ...(h3 && { h3: h3.fontSize }), body: p?.fontSize, ...(small && { small: small.fontSize }) },
      lineHeights: { heading: ratio(h1), body: ratio(p) },
      fontWeights: { regular: Number(p?.fontWeight) || 400, ...(h1 && { bold: Number(h1.fontWeight) || 700 }) },
    },
    spacing: {
      baseUnit: Number.isFinite(padding) && padding > 0 ? (padding % 8 === 0 ? 8 : 4) : 4,
      ...(buttonPrimary?.borderRadius && { borderRadius: buttonPrimary.borderRadius }),
    },
    components,
    images: { logo, favicon, ogImage },
  };
}

/**
 * readBranding as an expression for the page. tsx (esbuild with keepNames) wraps named functions
 * in `__name(...)` calls, which do not exist in the page; the wrapper defines it in the
 * expression's own scope rather than on the page's global object.
 */
const BRANDING_EXPRESSION = `(() => { const __name = (f) => f; return (${readBranding.toString()})(); })()`;

/**
 * The page's profile, or undefined with the reason when the page broke the reading (its scripts
 * share the realm and may have replaced what it calls). Checked for size here: the page decides
 * what comes back, so nothing in it is trusted beyond being JSON.
 */
export async function brandingOf(page: Page, timeoutMs: number): Promise<{ branding?: BrandingProfile; warning?: string }> {
  let timer: NodeJS.Timeout | undefined;
  // A page whose scripts hold its main thread (or replaced getComputedStyle with a loop) would
  // hold the evaluation until the activity's own timeout.
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const profile = JSON.parse(JSON.stringify(await Promise.race([page.evaluate(BRANDING_EXPRESSION), late]))) as BrandingProfile;
    if (JSON.stringify(profile).length <= MAX_BRANDING_CHARS) return { branding: profile };
    const images = { ...profile.images, logo: null };
    const trimmed = { ...profile, logo: null, images };
    if (JSON.stringify(trimmed).length <= MAX_BRANDING_CHARS) return { branding: trimmed, warning: 'The branding logo was too large to return.' };
    return { warning: 'The page\'s branding profile was too large to return.' };
  } catch (err) {
    return { warning: `The page's branding could not be read: ${err instanceof Error ? err.message.slice(0, 200) : String(err)}` };
  } finally {
    clearTimeout(timer);
  }
}
