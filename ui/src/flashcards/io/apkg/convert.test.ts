// Note types to Hearth cards, Anki card states to FSRS states, the review log to marks.
import { describe, expect, it } from 'vitest';
import type { AnkiCard, AnkiCollection, AnkiNotetype } from './collection';
import { clozeItemKey, convertCollection, itemStateOf } from './convert';

const notetype = (id: number, questions: number, cloze = false): AnkiNotetype => ({
  id,
  name: `nt${id}`,
  cloze,
  fields: ['A', 'B'],
  questions: Array<string>(questions).fill('{{A}}'),
});

const card = (id: number, note: number, deck: number, ord: number, extra: Partial<AnkiCard> = {}): AnkiCard => ({
  id,
  note,
  deck,
  ord,
  type: 0,
  queue: 0,
  due: id,
  interval: 0,
  reps: 0,
  lapses: 0,
  stability: null,
  difficulty: null,
  lastReview: null,
  ...extra,
});

function collection(cards: AnkiCard[], reviews: AnkiCollection['reviews'] = []): AnkiCollection {
  return {
    schema: 18,
    created: 1_000_000,
    notetypes: new Map([
      [1, notetype(1, 1)],
      [2, notetype(2, 2)],
      [3, notetype(3, 1, true)],
      [4, notetype(4, 3)],
    ]),
    decks: new Map([
      [10, { id: 10, name: 'A::B', newPerDay: 7 }],
      [11, { id: 11, name: 'Mixed', newPerDay: 20 }],
    ]),
    notes: [
      { id: 100, guid: 'g100', notetype: 2, fields: ['front', 'back'], tags: ['t1'] },
      { id: 101, guid: 'g101', notetype: 1, fields: ['<b>x</b>', 'y'], tags: [] },
      { id: 102, guid: 'g102', notetype: 3, fields: ['{{c1::a}} {{c2::b::hint}}', ''], tags: ['cloze'] },
      { id: 103, guid: 'g103', notetype: 4, fields: ['p', 'q'], tags: [] },
    ],
    cards,
    reviews,
  };
}

let counter = 0;
const makeId = () => `c${(counter += 1)}`;

describe('convertCollection', () => {
  it('makes a deck of reversed notes bidirectional, named as in Anki, with its new-card cap', () => {
    const { decks, reviews } = convertCollection(collection([card(1, 100, 10, 0), card(2, 100, 10, 1)]), makeId, new Date(0));
    expect(decks).toHaveLength(1);
    expect(decks[0]).toMatchObject({ name: 'A::B', bidirectional: true, cards: [{ front: 'front', back: 'back', guid: 'g100' }] });
    expect(reviews[0]?.newPerDay).toBe(7);
  });

  it('turns reverse cards into swapped cards in a mixed deck, one cloze card per note, and skips a third template', () => {
    const { decks, summary } = convertCollection(
      collection([card(1, 100, 11, 1), card(2, 101, 11, 0), card(3, 102, 11, 0), card(4, 102, 11, 1), card(5, 103, 11, 2)]),
      makeId,
      new Date(0),
    );
    expect(decks[0]?.bidirectional).toBe(false);
    expect(decks[0]?.cards.map(({ front, back }) => [front, back])).toEqual([
      ['back', 'front'],
      ['x', 'y'],
      // A cloze card's back is Anki's Back Extra (empty here): the flip reveals the deletions.
      ['{{c1::a}} {{c2::b::hint}}', ''],
    ]);
    // Each keeps its note's guid (one for the cloze note's two cards); a reverse card kept apart gets its own at export.
    expect(decks[0]?.cards.map((c) => c.guid)).toEqual(['', 'g101', 'g102']);
    expect(summary.skippedCards).toBe(1);
  });

  it('logs reviews under the item keys, Again as again and the rest as good, with the state Anki had', () => {
    const reviewed = card(3, 102, 11, 1, { type: 2, queue: 2, due: 30, interval: 5, reps: 2, stability: 6, difficulty: 4, lastReview: 2_000_000 });
    const { decks, reviews } = convertCollection(
      collection(
        [card(2, 102, 11, 0), reviewed],
        [
          { card: 3, at: 1_000, ease: 1 },
          { card: 3, at: 2_000, ease: 4 },
          { card: 3, at: 3_000, ease: 0 },
        ],
      ),
      makeId,
      new Date(0),
    );
    const id = decks[0]?.cards[0]?.id ?? '';
    const key = clozeItemKey(id, 2);
    expect(reviews[0]?.log).toEqual([
      [key, 1_000, 'again'],
      [key, 2_000, 'good'],
    ]);
    expect(reviews[0]?.items[key]).toEqual([(1_000_000 + 30 * 86_400) * 1000, 6, 4, 5, 0, 2, 0, 2, 2_000_000_000]);
    expect(reviews[0]?.items[id]).toBeUndefined();
  });
});

describe('itemStateOf', () => {
  it('is null for a new card and due at its exact time while learning', () => {
    expect(itemStateOf(card(1, 1, 1, 0), 0, null)).toBeNull();
    expect(itemStateOf(card(1, 1, 1, 0, { type: 1, queue: 1, due: 1_700_000_000 }), 0, 5)?.[0]).toBe(1_700_000_000_000);
  });

  it('stands in the interval and a middle difficulty without FSRS', () => {
    expect(itemStateOf(card(1, 1, 1, 0, { type: 2, queue: 2, due: 3, interval: 12 }), 100, 9)).toEqual([(100 + 3 * 86_400) * 1000, 12, 5, 12, 0, 0, 0, 2, 9]);
  });
});
