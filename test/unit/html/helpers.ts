import { readFileSync } from 'node:fs';
import type { TransformOptions } from '../../../scraper/types.js';

export function fixture(name: string): string {
  return readFileSync(new URL(`../../fixtures/html/${name}`, import.meta.url), 'utf8');
}

type OptionOverrides = Partial<Omit<TransformOptions, 'want'>> & { want?: Partial<TransformOptions['want']> };

export function options(overrides: OptionOverrides = {}): TransformOptions {
  return {
    onlyMainContent: true,
    removeBase64Images: true,
    ...overrides,
    want: { markdown: true, html: true, rawHtml: false, links: false, images: false, ...overrides.want },
  };
}
