import { describe, expect, it } from 'vitest';
import { acceptLanguage, localeForCountry } from '../../../scraper/net/accept-language.js';

describe('acceptLanguage', () => {
  it.each([
    [undefined, 'en-US,en;q=0.9'],
    [{ country: 'US' }, 'en-US,en;q=0.9'],
    [{ country: 'DE' }, 'de-DE,de;q=0.9'],
    [{ country: 'JP' }, 'ja-JP,ja;q=0.9'],
    [{ country: 'BR' }, 'pt-BR,pt;q=0.9'],
    [{ country: 'ZZ' }, 'en-US,en;q=0.9'],
  ])('uses the main language of %j', (location, expected) => {
    expect(acceptLanguage(location)).toBe(expected);
  });

  it('lists requested languages in order with falling q-values, adding bare languages as Chrome does', () => {
    expect(acceptLanguage({ country: 'US', languages: ['de-DE', 'en-US'] })).toBe('de-DE,de;q=0.9,en-US;q=0.8,en;q=0.7');
    expect(acceptLanguage({ country: 'US', languages: ['fr', 'fr-CA'] })).toBe('fr,fr-CA;q=0.9');
  });

  it('canonicalises tags and drops ones that would corrupt the header', () => {
    expect(acceptLanguage({ country: 'US', languages: ['EN-gb', 'x,y;q=1'] })).toBe('en-GB,en;q=0.9');
    expect(acceptLanguage({ country: 'FR', languages: ['not a tag'] })).toBe('fr-FR,fr;q=0.9');
  });

  it('never lets q fall below 0.1', () => {
    const languages = ['en', 'de', 'fr', 'es', 'it', 'nl', 'pt', 'sv', 'da', 'fi', 'no', 'pl'];
    const header = acceptLanguage({ country: 'US', languages });
    expect(header.split(',')).toHaveLength(12);
    expect(header.endsWith('pl;q=0.1')).toBe(true);
  });
});

describe('localeForCountry', () => {
  it('maps countries case-insensitively and falls back to en-US', () => {
    expect(localeForCountry('de')).toBe('de-DE');
    expect(localeForCountry('CH')).toBe('de-CH');
    expect(localeForCountry('XX')).toBe('en-US');
  });
});
