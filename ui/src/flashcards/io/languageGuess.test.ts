// Guessing an imported deck's languages: scripts and common words of the text, a language the
// fields declare, a language the deck's name or tags name, and nothing claimed without evidence.
import { describe, expect, it } from 'vitest';
import { guessDeckLanguages, namedLanguage, textLanguage, type DeckEvidence } from './languageGuess';

const evidence = (change: Partial<DeckEvidence>): DeckEvidence => ({
  name: 'Default',
  tags: [],
  frontFields: ['Front'],
  backFields: ['Back'],
  frontHtml: [],
  backHtml: [],
  fronts: [],
  backs: [],
  cloze: false,
  ...change,
});

describe('the language of a text', () => {
  it('reads it from common words and letters', () => {
    expect(textLanguage(['der Hund', 'die Katze', 'das Haus'])).toBe('de');
    expect(textLanguage(['the dog', 'the cat', 'a house'])).toBe('en');
    expect(textLanguage(['el perro', 'la casa', 'los gatos'])).toBe('es');
    expect(textLanguage(['le chien', 'la maison', 'les chats'])).toBe('fr');
    expect(textLanguage(['Straße', 'groß'])).toBe('de');
  });

  it('reads it from a script of its own', () => {
    expect(textLanguage(['ねこ', '犬'])).toBe('ja');
    expect(textLanguage(['猫', '狗'])).toBe('zh');
    expect(textLanguage(['собака', 'кошка'])).toBe('ru');
    expect(textLanguage(['개', '고양이'])).toBe('ko');
    expect(textLanguage(['σκύλος'])).toBe('el');
  });

  it('claims nothing from too little or mixed evidence', () => {
    expect(textLanguage([])).toBeNull();
    expect(textLanguage(['Hund', 'Katze'])).toBeNull();
    expect(textLanguage(['la', 'la'])).toBeNull();
  });
});

describe('a language a name names', () => {
  it('finds English names and names in the language itself, as words', () => {
    expect(namedLanguage('Spanish::Verbs')).toBe('es');
    expect(namedLanguage('Deutsch A1')).toBe('de');
    expect(namedLanguage('my french words')).toBe('fr');
    expect(namedLanguage('Default')).toBeNull();
    expect(namedLanguage('Frenchies')).toBeNull();
  });
});

describe('a deck’s languages', () => {
  it('takes the front as the source and the back as the target', () => {
    expect(guessDeckLanguages(evidence({ fronts: ['der Hund', 'die Katze'], backs: ['the dog', 'the cat'] }))).toEqual({
      source: { lang: 'de', from: 'text' },
      target: { lang: 'en', from: 'text' },
    });
  });

  it('believes what the fields declare over the text', () => {
    const declared = evidence({ frontFields: ['German'], backFields: ['English'], fronts: ['la casa', 'el perro'], backs: ['x'] });
    expect(guessDeckLanguages(declared)).toEqual({ source: { lang: 'de', from: 'declared' }, target: { lang: 'en', from: 'declared' } });
    const marked = evidence({ frontHtml: ['<span lang="nl">hond</span>'], fronts: ['hond'] });
    expect(guessDeckLanguages(marked).source).toEqual({ lang: 'nl', from: 'declared' });
  });

  it('fills a side nothing else said with the language the name or the tags name', () => {
    expect(guessDeckLanguages(evidence({ name: 'German::Nouns', fronts: ['Hund'], backs: ['the dog', 'the cat'] }))).toEqual({
      source: { lang: 'de', from: 'name' },
      target: { lang: 'en', from: 'text' },
    });
    expect(guessDeckLanguages(evidence({ tags: ['japanese', 'japanese'], fronts: ['x'], backs: ['y'] })).source).toEqual({ lang: 'ja', from: 'name' });
    // The name's language already on a side: nothing more is claimed.
    expect(guessDeckLanguages(evidence({ name: 'Spanish', fronts: ['el perro', 'la casa', 'los gatos'], backs: ['dog'] }))).toEqual({
      source: { lang: 'es', from: 'text' },
      target: null,
    });
  });

  it('gives a cloze deck its text’s language on both sides', () => {
    const cloze = evidence({ cloze: true, fronts: ['Der {{c1::Hund}} bellt und die Katze schläft'], backs: [''] });
    expect(guessDeckLanguages(cloze)).toEqual({ source: { lang: 'de', from: 'text' }, target: { lang: 'de', from: 'text' } });
  });
});
