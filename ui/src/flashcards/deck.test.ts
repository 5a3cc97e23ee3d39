import { describe, expect, it } from 'vitest';
import {
  cardCount,
  countFilledCards,
  defaultMeta,
  displayName,
  emptyCard,
  isCompleteCard,
  isDeckValid,
  moveToFront,
  normaliseForSave,
  sortNewestFirst,
  storedCard,
  storedCards,
  CardSchema,
  type Card,
} from './deck';
import * as v from 'valibot';

const card = (id: string, front: string, back: string, extra: Partial<Card> = {}): Card => ({
  ...emptyCard(id),
  front,
  back,
  ...extra,
});

describe('tags and suspended cards', () => {
  it('reads cards stored before tags as untagged and not suspended', () => {
    expect(v.parse(CardSchema, { id: 'a', front: 'x', back: 'y' })).toMatchObject({ tags: [], suspended: false });
  });

  it('keeps only non-empty tags without spaces, once each', () => {
    expect(v.parse(CardSchema, { tags: ['a b', '', 'a', 7, 'C'], suspended: 'yes' })).toMatchObject({ tags: ['a', 'b', 'C'], suspended: false });
    expect(v.parse(CardSchema, { tags: 'a b' }).tags).toEqual([]);
  });

  it('writes tags and suspended only when set, so older cards are stored as before', () => {
    expect(storedCard(emptyCard('a'))).toEqual({ id: 'a', front: '', back: '', pronunciation: '', gender: '', example: '' });
    expect(storedCard({ ...emptyCard('a'), tags: ['t'], suspended: true })).toMatchObject({ tags: ['t'], suspended: true });
  });

  it('counts a cloze card without a back as complete, and saves its tags', () => {
    expect(isCompleteCard(card('z', 'The {{c1::cat}}', ''))).toBe(true);
    expect(isCompleteCard(card('z', 'The {{c1::}}', ''))).toBe(false);
    const deck = normaliseForSave('d', { ...defaultMeta(), name: 'D' }, [card('z', ' The {{c1::cat}} ', '', { tags: ['x'], suspended: true })], new Date(0));
    expect(deck.cards).toEqual([{ ...emptyCard('z'), front: 'The {{c1::cat}}', tags: ['x'], suspended: true }]);
  });
});

describe('the conflict note sync leaves on a card', () => {
  it('is optional: cards stored without it read and write as before; with it, it is kept through a save', () => {
    expect(v.parse(CardSchema, { id: 'a', front: 'x' }).conflict).toBeUndefined();
    expect(storedCard(v.parse(CardSchema, { id: 'a', front: 'x', conflict: 3 }))).not.toHaveProperty('conflict');
    const card = v.parse(CardSchema, { id: 'a', front: 'x', back: 'y', conflict: 'back: z' });
    expect(storedCard(card)).toMatchObject({ conflict: 'back: z' });
    const saved = normaliseForSave('d', defaultMeta(), [card], new Date(0));
    expect(saved.cards[0]?.conflict).toBe('back: z');
  });
});

describe('defaults', () => {
  it('start with en to fr, one-way practice and every optional field on', () => {
    expect(defaultMeta()).toEqual({
      name: '',
      author: '',
      description: '',
      sourceLang: 'en',
      targetLang: 'fr',
      bidirectional: false,
      pronunciationField: true,
      genderField: true,
      exampleField: true,
      autoplay: false,
    });
  });
});

describe('deck validity', () => {
  it('needs a name with text and one card with both sides', () => {
    expect(isDeckValid('French', [card('a', 'cat', 'chat')])).toBe(true);
  });
  it('rejects a blank or whitespace name', () => {
    expect(isDeckValid('', [card('a', 'cat', 'chat')])).toBe(false);
    expect(isDeckValid('   ', [card('a', 'cat', 'chat')])).toBe(false);
  });
  it('rejects decks whose cards all miss a side', () => {
    expect(isDeckValid('French', [])).toBe(false);
    expect(isDeckValid('French', [card('a', 'cat', ' '), card('b', '', 'chien')])).toBe(false);
  });
  it('is valid when any one card is complete', () => {
    expect(isDeckValid('French', [card('a', '', ''), card('b', 'dog', 'chien')])).toBe(true);
  });
  it('calls a card complete only when both trimmed sides have text', () => {
    expect(isCompleteCard(card('a', ' x ', ' y '))).toBe(true);
    expect(isCompleteCard(card('a', '\t', 'y'))).toBe(false);
  });
});

describe('card counting', () => {
  it('counts cards where the front or the back has text', () => {
    expect(countFilledCards([card('a', 'cat', ''), card('b', '', 'chien'), card('c', ' ', '  '), card('d', 'x', 'y')])).toBe(3);
  });
  it('ignores optional fields', () => {
    expect(countFilledCards([card('a', '', '', { example: 'text', gender: 'm' })])).toBe(0);
  });
  it('formats the count', () => {
    expect(cardCount(0)).toBe('0 cards');
    expect(cardCount(1)).toBe('1 cards');
    expect(cardCount(5000)).toBe('5000 cards');
  });
});

describe('display name', () => {
  it("shows 'Untitled deck' for an empty name", () => {
    expect(displayName('')).toBe('Untitled deck');
    expect(displayName('  ')).toBe('Untitled deck');
    expect(displayName(' French ')).toBe('French');
  });
});

describe('save normalisation', () => {
  const meta = { ...defaultMeta(), name: '  French  ', author: ' Ada ', description: ' basics ' };
  const now = new Date('2025-03-01T10:00:00.000Z');

  it('drops cards with a blank front or back and keeps the order of the rest', () => {
    const deck = normaliseForSave('id-1', meta, [card('a', 'cat', 'chat'), card('b', 'dog', ''), card('c', '', 'x'), card('d', 'one', 'un')], now);
    expect(deck.cards.map((c) => c.id)).toEqual(['a', 'd']);
  });
  it('resets createdAt to the save time and stamps type and version', () => {
    const deck = normaliseForSave('id-1', meta, [card('a', 'cat', 'chat')], now);
    expect(deck.createdAt).toBe('2025-03-01T10:00:00.000Z');
    expect(deck.type).toBe('deck');
    expect(deck.version).toBe(1);
    expect(deck.id).toBe('id-1');
  });
  it('trims the texts it stores', () => {
    const deck = normaliseForSave('id-1', meta, [card('a', ' cat ', ' chat ', { gender: ' m ', pronunciation: ' /ʃa/ ', example: ' Le chat. ' })], now);
    expect(deck.name).toBe('French');
    expect(deck.author).toBe('Ada');
    expect(deck.description).toBe('basics');
    expect(deck.cards[0]).toEqual({
      id: 'a',
      front: 'cat',
      back: 'chat',
      gender: 'm',
      pronunciation: '/ʃa/',
      example: 'Le chat.',
      tags: [],
      suspended: false,
      media: [],
      guid: '',
    });
  });
  it('keeps the languages and switches', () => {
    const deck = normaliseForSave('x', { ...meta, sourceLang: 'hu', targetLang: 'nl', bidirectional: true, genderField: false }, [card('a', 'a', 'b')], now);
    expect(deck).toMatchObject({ sourceLang: 'hu', targetLang: 'nl', bidirectional: true, genderField: false, pronunciationField: true, exampleField: true });
  });
});

describe('index order', () => {
  it('puts a new id at the front', () => {
    expect(moveToFront(['a', 'b'], 'c')).toEqual(['c', 'a', 'b']);
  });
  it('moves an existing id to the front without duplicating it', () => {
    expect(moveToFront(['a', 'b', 'c'], 'c')).toEqual(['c', 'a', 'b']);
    expect(moveToFront(['a'], 'a')).toEqual(['a']);
  });
});

describe('deck list order', () => {
  it('sorts by createdAt, newest first, with unreadable dates last', () => {
    const decks = [
      { id: 'old', createdAt: '2024-01-01T00:00:00Z' },
      { id: 'bad', createdAt: 'yesterday' },
      { id: 'new', createdAt: '2025-06-01T00:00:00Z' },
      { id: 'mid', createdAt: '2024-06-01T00:00:00Z' },
    ];
    expect(sortNewestFirst(decks).map((d) => d.id)).toEqual(['new', 'mid', 'old', 'bad']);
  });
});

describe('the deck’s autoplay choice', () => {
  it('is off when missing, and written only when on, so a deck without it is stored byte for byte as before', () => {
    expect(defaultMeta().autoplay).toBe(false);
    const deck = normaliseForSave('d', { ...defaultMeta(), name: 'Hunde' }, [{ ...emptyCard('a'), front: 'Hund', back: 'dog' }], new Date(0));
    expect(storedCards(deck)).not.toHaveProperty('autoplay');
    expect(JSON.stringify(storedCards(deck))).not.toContain('autoplay');
    expect(storedCards({ ...deck, autoplay: true })).toMatchObject({ autoplay: true });
    const draft = { deckId: null, meta: { ...defaultMeta(), name: 'x' }, cards: [] };
    expect(JSON.stringify(storedCards(draft))).not.toContain('autoplay');
    expect(storedCards({ ...draft, meta: { ...draft.meta, autoplay: true } }).meta).toMatchObject({ autoplay: true });
  });
});
