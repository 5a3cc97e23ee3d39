// The deck store's summaries for the deck list: decks stored before summaries existed list as
// before, every write of a deck or its log keeps the summary true, a writer that does not know of
// summaries (an older version, sync) is noticed, and a summary that does not fit changes nothing.
import { describe, expect, it } from 'vitest';
import { defaultMeta, emptyCard, normaliseForSave, storedCards, type Deck } from './deck';
import { createDeckStore, deckKey, INDEX_KEY, reviewsKey, summaryKey } from './storage';
import { createDecksSyncAdapter } from './syncAdapter';
import { emptyReviews, recordMark, toStored } from './srs/reviewLog';
import { MemoryStorage } from '../lib/memoryStorage';

const NOW = Date.UTC(2026, 5, 1, 12);
let counter = 0;
const makeId = () => `gen-${(counter += 1)}`;
const deck = (id: string, name: string, size = 2): Deck =>
  normaliseForSave(
    id,
    { ...defaultMeta(), name },
    Array.from({ length: size }, (_, i) => ({ ...emptyCard(`${id}-c${i}`), front: `f${i}`, back: `b${i}`, tags: i === 0 ? ['noun'] : [] })),
    new Date('2025-01-01T00:00:00.000Z'),
  );

describe('deck store: summaries for the list', () => {
  it('lists decks stored without summaries, and stores their summaries', () => {
    const storage = new MemoryStorage();
    const a = deck('a', 'A', 3);
    storage.setItem(deckKey('a'), JSON.stringify(storedCards(a)));
    storage.setItem(reviewsKey('a'), JSON.stringify(toStored(recordMark(emptyReviews(), 'a-c0', 'good', NOW - 1000))));
    storage.setItem(INDEX_KEY, JSON.stringify(['a', 'missing']));
    const store = createDeckStore(storage, makeId);
    const [listed, ...rest] = store.listSummaries(NOW);
    expect(rest).toEqual([]);
    expect(listed).toMatchObject({ id: 'a', name: 'A', cardCount: 3, tags: ['noun'], due: 2, reviewDue: 2 });
    expect(storage.getItem(summaryKey('a'))).not.toBeNull();
    // A new store (a page load) reads the summary without the deck.
    const again = createDeckStore(storage, makeId);
    expect(again.listSummaries(NOW)[0]).toMatchObject({ id: 'a', due: 2, reviewDue: 2 });
  });

  it('keeps the summary true on saving a deck, a review, an import and a delete', () => {
    const storage = new MemoryStorage();
    const store = createDeckStore(storage, makeId);
    store.saveDeck(deck('a', 'A', 2));
    expect(store.listSummaries(NOW)[0]).toMatchObject({ cardCount: 2, due: 2 });
    store.saveDeck({ ...deck('a', 'Renamed', 5) });
    expect(store.listSummaries(NOW)[0]).toMatchObject({ name: 'Renamed', cardCount: 5, due: 5 });
    store.writeReviews('a', recordMark(emptyReviews(), 'a-c1', 'good', NOW - 1000));
    expect(store.listSummaries(NOW)[0]).toMatchObject({ due: 4, reviewDue: 4 });
    store.importDecks([deck('b', 'B', 1)], { b: recordMark(emptyReviews(), 'b-c0', 'good', NOW - 1000) });
    expect(store.listSummaries(NOW).map((listed) => [listed.id, listed.due])).toEqual([
      ['b', 0],
      ['a', 4],
    ]);
    store.deleteDeck('b');
    expect(storage.getItem(summaryKey('b'))).toBeNull();
    expect(store.listSummaries(NOW).map((listed) => listed.id)).toEqual(['a']);
  });

  it('notices a deck or log written by something that does not keep summaries', () => {
    const storage = new MemoryStorage();
    const store = createDeckStore(storage, makeId);
    store.saveDeck(deck('a', 'A', 2));
    store.listSummaries(NOW);
    // An older version of the app adds a card and a mark, leaving the summary as it was.
    storage.setItem(deckKey('a'), JSON.stringify(storedCards(deck('a', 'A', 3))));
    expect(store.listSummaries(NOW)[0]).toMatchObject({ cardCount: 3, due: 3 });
    storage.setItem(reviewsKey('a'), JSON.stringify(toStored(recordMark(emptyReviews(), 'a-c2', 'good', NOW - 1000))));
    expect(store.listSummaries(NOW)[0]).toMatchObject({ due: 2 });
  });

  it('drops the summary of what sync writes', () => {
    const storage = new MemoryStorage();
    const store = createDeckStore(storage, makeId);
    store.saveDeck(deck('a', 'A', 2));
    store.listSummaries(NOW);
    const adapter = createDecksSyncAdapter(storage, makeId);
    adapter.apply({ put: { a: storedCards(deck('a', 'From elsewhere', 2)) }, remove: [], order: null, reviews: {} });
    expect(storage.getItem(summaryKey('a'))).toBeNull();
    expect(store.listSummaries(NOW)[0]).toMatchObject({ name: 'From elsewhere' });
    adapter.apply({ put: {}, remove: ['a'], order: [], reviews: {} });
    expect(storage.getItem(summaryKey('a'))).toBeNull();
    expect(store.listSummaries(NOW)).toEqual([]);
  });

  it('lists a deck whose summary does not fit, and saves the deck all the same', () => {
    const storage = new MemoryStorage();
    const setItem = storage.setItem.bind(storage);
    storage.setItem = (key, value) => {
      if (key.startsWith('deck:summary:')) throw new DOMException('full', 'QuotaExceededError');
      setItem(key, value);
    };
    const store = createDeckStore(storage, makeId);
    expect(store.saveDeck(deck('a', 'A', 2))).toEqual({ ok: true });
    expect(store.listSummaries(NOW)[0]).toMatchObject({ id: 'a', cardCount: 2, due: 2 });
    expect(storage.getItem(summaryKey('a'))).toBeNull();
  });
});
