import { describe, expect, it } from 'vitest';
import { DeckMetaSchema } from './deck';
import { ISO_639_1, isLanguageTag, langLabel, languageName, languageOptions, optionsFor, searchLanguages, searchStatus, SPEC_LANGUAGES } from './languages';
import * as v from 'valibot';

describe('the language list', () => {
  it('offers every ISO 639-1 code once, the spec’s four first in the spec’s order', () => {
    const codes = languageOptions().map((entry) => entry.code);
    expect(new Set(ISO_639_1).size).toBe(183);
    expect(codes).toHaveLength(183);
    expect(new Set(codes)).toEqual(new Set(ISO_639_1));
    expect(codes.slice(0, 4)).toEqual([...SPEC_LANGUAGES]);
    expect(
      languageOptions()
        .slice(0, 4)
        .map((entry) => entry.name),
    ).toEqual(['English', 'Dutch', 'French', 'Hungarian']);
  });

  it('names every language in English and sorts the rest by that name', () => {
    const rest = languageOptions().slice(4);
    for (const entry of languageOptions()) expect(entry.name).not.toBe(entry.code);
    const names = rest.map((entry) => entry.name);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b, 'en')));
    expect(languageName('de')).toBe('German');
    expect(languageName('ja')).toBe('Japanese');
    expect(languageName('pt-BR')).toBe('Brazilian Portuguese');
  });
});

describe('the language names', () => {
  it('are carried for every listed code, each once, whatever names the browser’s Intl has', () => {
    const names = languageOptions().map((entry) => entry.name);
    expect(new Set(names).size).toBe(183);
    expect(languageName('tw')).toBe('Twi');
    expect(languageName('ak')).toBe('Akan');
    // The names a browser with little ICU data (Chromium) leaves out.
    expect(['aa', 'kj', 'za'].map(languageName)).toEqual(['Afar', 'Kuanyama', 'Zhuang']);
    expect(languageName('DE')).toBe('German');
  });
});

describe('language tags', () => {
  it('accepts the spec’s four and any well-formed language tag', () => {
    for (const tag of ['en', 'nl', 'fr', 'hu', 'de', 'ja', 'yue', 'pt-BR', 'zh-Hant', 'sr-Latn-RS', 'EN']) expect(isLanguageTag(tag)).toBe(true);
  });

  it('refuses what is not a language tag', () => {
    for (const value of [
      '',
      'e',
      'english',
      'en_GB',
      'en-',
      '-en',
      'x-private',
      'i-klingon',
      'de DE',
      'ja-toolongsubtag',
      'a'.repeat(40),
      7,
      null,
      undefined,
      {},
    ]) {
      expect(isLanguageTag(value)).toBe(false);
    }
  });

  it('keeps a stored tag as it is, and falls back to the defaults only for what is not one', () => {
    const meta = v.parse(DeckMetaSchema, { sourceLang: 'de', targetLang: 'ja' });
    expect([meta.sourceLang, meta.targetLang]).toEqual(['de', 'ja']);
    const legacy = v.parse(DeckMetaSchema, { sourceLang: 'hu', targetLang: 'nl' });
    expect([legacy.sourceLang, legacy.targetLang]).toEqual(['hu', 'nl']);
    const bad = v.parse(DeckMetaSchema, { sourceLang: 'German', targetLang: 3 });
    expect([bad.sourceLang, bad.targetLang]).toEqual(['en', 'fr']);
  });
});

describe('the pill', () => {
  it('shows upper-case codes', () => {
    expect(`${langLabel('de')} → ${langLabel('ja')}`).toBe('DE → JA');
    expect(langLabel('en')).toBe('EN');
    expect(langLabel('pt-BR')).toBe('PT-BR');
  });
});

describe('searching the list', () => {
  const codes = (query: string) => searchLanguages(query).map((entry) => entry.code);

  it('finds a language by English name, own name or code, ignoring case and accents', () => {
    expect(codes('germ')[0]).toBe('de');
    expect(codes('Deutsch')[0]).toBe('de');
    expect(codes('ja')[0]).toBe('ja');
    expect(codes('japanese')).toEqual(['ja']);
    expect(codes('francais')).toContain('fr');
    expect(codes('magyar')[0]).toBe('hu');
  });

  it('puts the exact code first, then names that start with the words, then the rest', () => {
    const found = codes('no');
    expect(found[0]).toBe('no');
    expect(found.indexOf('nb')).toBeGreaterThan(0);
  });

  it('offers a full tag the list does not hold when the browser knows it', () => {
    expect(searchLanguages('yue')[0]).toMatchObject({ code: 'yue', name: 'Cantonese' });
    expect(searchLanguages('pt-BR')[0]).toMatchObject({ code: 'pt-BR', name: 'Brazilian Portuguese' });
    expect(searchLanguages('qqq')).toEqual([]);
  });

  it('gives the whole list for a blank search and nothing for no match', () => {
    expect(searchLanguages('  ')).toHaveLength(183);
    expect(searchLanguages('zzzz')).toEqual([]);
  });

  it('always keeps the deck’s own language among the options', () => {
    expect(optionsFor('de', searchLanguages('ja')).map((entry) => entry.code)[0]).toBe('de');
    expect(optionsFor('ja', searchLanguages('ja')).filter((entry) => entry.code === 'ja')).toHaveLength(1);
    expect(optionsFor('pt-BR', languageOptions())[0]).toMatchObject({ code: 'pt-BR', name: 'Brazilian Portuguese' });
  });

  it('says how many match', () => {
    expect(searchStatus('', 183)).toBe('');
    expect(searchStatus('japanese', 1)).toBe('1 language matches.');
    expect(searchStatus('ja', 3)).toBe('3 languages match.');
    expect(searchStatus('zzzz ', 0)).toBe('No language matches “zzzz”.');
  });
});
