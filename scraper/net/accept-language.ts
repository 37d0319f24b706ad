/**
 * Accept-Language as Chrome would send it for a scrape's `location`. Shared by the http engine
 * (the header) and the browser engine (the header and the context locale), so both ask a site
 * for the same language.
 */
import type { Location } from '../../contracts/scrape-options.js';

const FALLBACK_LOCALE = 'en-US';

/** The main language of each country, as a locale. Countries not listed fall back to en-US. */
const COUNTRY_LOCALES: Readonly<Record<string, string>> = {
  AE: 'ar-AE', AR: 'es-AR', AT: 'de-AT', AU: 'en-AU', BD: 'bn-BD', BE: 'nl-BE', BG: 'bg-BG',
  BO: 'es-BO', BR: 'pt-BR', BY: 'ru-BY', CA: 'en-CA', CH: 'de-CH', CL: 'es-CL', CN: 'zh-CN',
  CO: 'es-CO', CR: 'es-CR', CU: 'es-CU', CY: 'el-CY', CZ: 'cs-CZ', DE: 'de-DE', DK: 'da-DK',
  DO: 'es-DO', DZ: 'ar-DZ', EC: 'es-EC', EE: 'et-EE', EG: 'ar-EG', ES: 'es-ES', FI: 'fi-FI',
  FR: 'fr-FR', GB: 'en-GB', GR: 'el-GR', GT: 'es-GT', HK: 'zh-HK', HN: 'es-HN', HR: 'hr-HR',
  HU: 'hu-HU', ID: 'id-ID', IE: 'en-IE', IL: 'he-IL', IN: 'en-IN', IQ: 'ar-IQ', IR: 'fa-IR',
  IS: 'is-IS', IT: 'it-IT', JO: 'ar-JO', JP: 'ja-JP', KE: 'en-KE', KR: 'ko-KR', KW: 'ar-KW',
  KZ: 'kk-KZ', LB: 'ar-LB', LK: 'si-LK', LT: 'lt-LT', LU: 'fr-LU', LV: 'lv-LV', MA: 'ar-MA',
  MX: 'es-MX', MY: 'ms-MY', NG: 'en-NG', NI: 'es-NI', NL: 'nl-NL', NO: 'nb-NO', NP: 'ne-NP',
  NZ: 'en-NZ', PA: 'es-PA', PE: 'es-PE', PH: 'en-PH', PK: 'ur-PK', PL: 'pl-PL', PR: 'es-PR',
  PT: 'pt-PT', PY: 'es-PY', QA: 'ar-QA', RO: 'ro-RO', RS: 'sr-RS', RU: 'ru-RU', SA: 'ar-SA',
  SE: 'sv-SE', SG: 'en-SG', SI: 'sl-SI', SK: 'sk-SK', SV: 'es-SV', TH: 'th-TH', TN: 'ar-TN',
  TR: 'tr-TR', TW: 'zh-TW', UA: 'uk-UA', US: 'en-US', UY: 'es-UY', VE: 'es-VE', VN: 'vi-VN',
  ZA: 'en-ZA',
};

/** The main locale of an ISO 3166-1 alpha-2 country, e.g. `DE` → `de-DE`. */
export function localeForCountry(country: string): string {
  return COUNTRY_LOCALES[country.toUpperCase()] ?? FALLBACK_LOCALE;
}

/** Well-formed tags only: user input lands in a header, where stray commas or `;` would change its meaning. */
function canonicalTag(tag: string): string | undefined {
  try {
    return Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined;
  }
}

/** Chrome follows each regional tag with its bare language unless the list already has it. */
function expand(tags: string[]): string[] {
  const listed = new Set(tags.map((tag) => tag.toLowerCase()));
  const out: string[] = [];
  const seen = new Set<string>();
  const add = (tag: string): void => {
    const key = tag.toLowerCase();
    if (seen.has(key)) return;
    seen.add(key);
    out.push(tag);
  };
  for (const tag of tags) {
    add(tag);
    const base = tag.split('-')[0];
    if (base && base !== tag && !listed.has(base.toLowerCase())) add(base);
  }
  return out;
}

/**
 * The Accept-Language header for a location: its languages in order, else the country's main
 * language, with falling q-values, e.g. `DE` → `de-DE,de;q=0.9`.
 */
export function acceptLanguage(location?: Location): string {
  const requested = (location?.languages ?? []).map(canonicalTag).filter((tag) => tag !== undefined);
  const tags = expand(requested.length > 0 ? requested : [localeForCountry(location?.country ?? 'US')]);
  return tags
    .map((tag, i) => (i === 0 ? tag : `${tag};q=${Math.max(1, 10 - i) / 10}`))
    .join(',');
}
