/**
 * Server-rendered HTML without a template engine: `html` is a tagged template that escapes every
 * interpolated value unless it is already Html (the result of another `html`), so markup is built
 * from parts and user data can never become markup.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Part = Html | string | number | boolean | null | undefined | readonly Part[];

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(String(part));
}

export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0]!;
  values.forEach((v, i) => {
    out += render(v) + strings[i + 1]!;
  });
  return new Html(out);
}

/** 2026-11-26 14:03 UTC, or a dash. */
export function when(at: Date | null | undefined): string {
  return at ? `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC` : '—';
}

/** 850 ms, 12.4 s, 3 min 05 s. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}

export function number(n: number): string {
  return n.toLocaleString('en-US');
}
