import { describe, expect, it } from 'vitest';
import { defaultMeta, normaliseForSave, type Deck } from '../deck';
import { readBackup, withFreshIds, writeBackup } from './backup';
import { emptyReviews, recordMark, withNewPerDay } from '../srs/reviewLog';

const counter = () => {
  let n = 0;
  return () => `new-${++n}`;
};

const deck = (id: string, name: string): Deck =>
  normaliseForSave(
    id,
    { ...defaultMeta(), name, author: 'Ada', description: 'd', sourceLang: 'nl', targetLang: 'hu', bidirectional: true, genderField: false },
    [
      {
        id: `${id}-c1`,
        front: 'kat',
        back: 'macska',
        pronunciation: '/ˈmɒt͡ʃkɒ/',
        gender: '',
        example: 'A macska alszik.',
        tags: ['animals', 'nouns'],
        suspended: false,
        media: [],
        guid: '',
      },
      { id: `${id}-c2`, front: 'hond', back: 'kutya', pronunciation: '', gender: '', example: '', tags: [], suspended: true, media: [], guid: '' },
    ],
    new Date('2025-03-04T05:06:07.000Z'),
  );

describe('JSON backup', () => {
  it('round-trips every deck losslessly', () => {
    const decks = [deck('a', 'Dutch → Hungarian'), deck('b', 'Second')];
    const text = writeBackup(decks, new Date('2025-06-01T00:00:00.000Z'));
    expect(JSON.parse(text)).toMatchObject({ type: 'hearth-decks', version: 1, exportedAt: '2025-06-01T00:00:00.000Z' });
    const result = readBackup(text, counter());
    expect(result).toEqual({ decks, reviews: [null, null], problems: [] });
  });

  it('accepts a bare deck record and a list of records', () => {
    const one = deck('a', 'One');
    expect(readBackup(JSON.stringify(one), counter()).decks).toEqual([one]);
    expect(readBackup(`\ufeff${JSON.stringify([one, deck('b', 'Two')])}`, counter()).decks.map((d) => d.id)).toEqual(['a', 'b']);
  });

  it('fills in what storage would: missing ids and texts', () => {
    const record = { type: 'deck', version: 1, name: 'Sparse', cards: [{ front: 'x' }] };
    const [read] = readBackup(JSON.stringify(record), counter()).decks;
    expect(read).toMatchObject({ id: 'new-1', name: 'Sparse', sourceLang: 'en', targetLang: 'fr' });
    expect(read?.cards).toEqual([
      { id: 'new-2', front: 'x', back: '', pronunciation: '', gender: '', example: '', tags: [], suspended: false, media: [], guid: '' },
    ]);
  });

  it('says what is wrong with a record, naming it', () => {
    const ids = counter();
    expect(() => readBackup(JSON.stringify([deck('a', 'One'), { type: 'note', name: 'Odd' }]), ids)).toThrow(
      'Deck 2 (“Odd”) is not a deck: its type is "note", not "deck"',
    );
    expect(() => readBackup(JSON.stringify({ ...deck('a', 'Next'), version: 2 }), ids)).toThrow('Deck 1 (“Next”) has version 2; this app reads version 1');
    expect(() => readBackup(JSON.stringify({ type: 'deck', version: 1, cards: 'no' }), ids)).toThrow('Deck 1: its cards are not a list');
    expect(() => readBackup('[1]', ids)).toThrow('Deck 1 is not a deck record');
    expect(() => readBackup('[]', ids)).toThrow('the backup holds no decks');
    expect(() => readBackup('{"type":"hearth-decks","version":3,"decks":[]}', ids)).toThrow('version 3');
    expect(() => readBackup('"text"', ids)).toThrow('a backup is a deck');
  });

  it('reports a JSON syntax error with its line', () => {
    expect(() => readBackup('{\n  "type": "deck",\n  "name": oops\n}', counter())).toThrow(/^Line 3: this is not valid JSON/);
  });

  it('notes languages that are not language tags', () => {
    const record = { ...deck('a', 'German'), sourceLang: 'German!' };
    const result = readBackup(JSON.stringify(record), counter());
    expect(result.decks[0]?.sourceLang).toBe('en');
    expect(result.problems).toEqual([{ line: null, message: 'Deck 1 (“German”): the language "German!" is not a language tag; the default is used' }]);
  });

  it('keeps any language tag, beyond the spec’s four', () => {
    const record = { ...deck('a', 'German'), sourceLang: 'de', targetLang: 'pt-BR' };
    const result = readBackup(JSON.stringify(record), counter());
    expect(result.decks[0]).toMatchObject({ sourceLang: 'de', targetLang: 'pt-BR' });
    expect(result.problems).toEqual([]);
  });
});

describe('withFreshIds', () => {
  it('keeps free ids and replaces taken or repeated ones, never touching card ids', () => {
    const decks = [deck('a', 'A'), deck('b', 'B'), deck('b', 'B again')];
    const result = withFreshIds(decks, ['a'], counter());
    expect(result.map((d) => d.id)).toEqual(['new-1', 'b', 'new-2']);
    expect(result[0]?.cards).toEqual(decks[0]?.cards);
    expect(result[1]).toBe(decks[1]);
  });
});

describe('JSON backup: review logs', () => {
  const T0 = Date.UTC(2026, 0, 5, 9);
  const log = withNewPerDay(recordMark(recordMark(emptyReviews(), 'a-c1', 'good', T0), 'a-c1:reverse', 'again', T0 + 1000), 12);

  it('carries each deck’s review log and reads it back at the deck’s position', () => {
    const decks = [deck('a', 'With log'), deck('b', 'Without')];
    const text = writeBackup(decks, new Date('2025-06-01T00:00:00.000Z'), { a: log });
    const parsed = JSON.parse(text) as { reviews: Record<string, unknown> };
    expect(Object.keys(parsed.reviews)).toEqual(['a']);
    expect(parsed.reviews.a).toMatchObject({ type: 'reviews', version: 1, newPerDay: 12 });
    expect(readBackup(text, counter())).toEqual({ decks, reviews: [log, null], problems: [] });
  });

  it('leaves out logs of decks not in the backup, and writes no reviews key without logs', () => {
    const text = writeBackup([deck('b', 'Without')], new Date(0), { a: log });
    expect(JSON.parse(text)).not.toHaveProperty('reviews');
  });

  it('imports a deck without its log when the log cannot be read, and says so', () => {
    const text = JSON.stringify({ type: 'hearth-decks', version: 1, decks: [deck('a', 'A')], reviews: { a: { type: 'reviews', version: 9 } } });
    const result = readBackup(text, counter());
    expect(result.reviews).toEqual([null]);
    expect(result.problems[0]?.message).toMatch(/review log could not be read/);
  });
});
