// Practice items beyond front/back cards: one per cloze number, limited to a tag, suspended left out.
import { describe, expect, it } from 'vitest';
import { emptyCard, type Card } from './deck';
import { expectedAnswer, faces, keysByTag, practiceItems } from './practice';
import { deckKeys, dueCount } from './srs/due';
import { emptyReviews } from './srs/reviewLog';

const card = (id: string, front: string, back: string, extra: Partial<Card> = {}): Card => ({ ...emptyCard(id), front, back, ...extra });

describe('cloze items', () => {
  const cloze = card('z', '{{c1::Paris}} is the capital of {{c2::France::country}}; {{c1::Rome}} of Italy', '');

  it('makes one item per cloze number (c1 keyed by the card id, cN by {cardId}:cN), without a back and only one way', () => {
    const items = practiceItems({ cards: [cloze, card('a', 'cat', 'chat')], bidirectional: true });
    expect(items.map((item) => item.key)).toEqual(['z', 'z:c2', 'a', 'a:reverse']);
    expect(items[0]?.cloze).toBe(1);
  });

  it('asks with the number blank, answers with it revealed, and compares typed answers with the hidden text', () => {
    const [first, second] = practiceItems({ cards: [cloze], bidirectional: false });
    if (!first || !second) throw new Error('two items expected');
    expect(faces(first)).toEqual({
      prompt: '[...] is the capital of France; [...] of Italy',
      answer: 'Paris is the capital of France; Rome of Italy',
    });
    expect(faces(second).prompt).toBe('Paris is the capital of [country]; Rome of Italy');
    expect(expectedAnswer(first)).toBe('Paris, Rome');
    expect(expectedAnswer(second)).toBe('France');
  });

  it('keeps the ids of other cards as they were', () => {
    expect(practiceItems({ cards: [card('a', 'cat', 'chat')], bidirectional: false }).map((item) => item.key)).toEqual(['a']);
    expect(expectedAnswer({ key: 'a', card: card('a', 'cat', 'chat'), reverse: true })).toBe('cat');
  });

  it('treats malformed cloze markup as an ordinary card that needs a back', () => {
    expect(practiceItems({ cards: [card('m', '{{c1::open', '')], bidirectional: false })).toEqual([]);
    expect(practiceItems({ cards: [card('m', '{{c1::open', 'back')], bidirectional: false }).map((item) => item.key)).toEqual(['m']);
  });
});

describe('tags and suspended cards', () => {
  const cards = [
    card('a', 'cat', 'chat', { tags: ['animals', 'Nouns'] }),
    card('b', 'to eat', 'manger', { tags: ['verbs'] }),
    card('c', 'dog', 'chien', { tags: ['animals'], suspended: true }),
    card('d', 'one', 'un'),
  ];

  it('leaves suspended cards out of practice and the due counts', () => {
    const keys = deckKeys({ cards, bidirectional: false });
    expect(keys).toEqual(['a', 'b', 'd']);
    expect(dueCount(keys, emptyReviews(), 0)).toBe(3);
  });

  it('limits the items to a tag, without regard to case', () => {
    expect(deckKeys({ cards, bidirectional: true }, 'ANIMALS')).toEqual(['a', 'a:reverse']);
    expect(deckKeys({ cards, bidirectional: false }, 'nouns')).toEqual(['a']);
    expect(deckKeys({ cards, bidirectional: false }, 'missing')).toEqual([]);
  });

  it('groups the keys of practice items by tag', () => {
    expect(keysByTag({ cards, bidirectional: false })).toEqual([
      { tag: 'animals', keys: ['a'] },
      { tag: 'Nouns', keys: ['a'] },
      { tag: 'verbs', keys: ['b'] },
    ]);
  });
});
