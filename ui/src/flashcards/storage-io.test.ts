// The storage functions behind import and export: adding decks in one step, and the times of the
// last export and of the last dismissed backup reminder.
import { describe, expect, it } from 'vitest';
import { defaultMeta, emptyCard, normaliseForSave, type Deck } from './deck';
import { createDeckStore, deckKey, INDEX_KEY, LAST_EXPORT_KEY, REMINDER_DISMISSED_KEY, reviewsKey, sessionKey } from './storage';
import { emptyReviews, recordMark } from './srs/reviewLog';
import { MemoryStorage } from '../lib/memoryStorage';

let counter = 0;
const makeId = () => `gen-${(counter += 1)}`;
const deck = (id: string, name: string): Deck =>
  normaliseForSave(id, { ...defaultMeta(), name }, [{ ...emptyCard(`${id}-c1`), front: 'cat', back: 'chat' }], new Date('2025-01-01T00:00:00.000Z'));

describe('deck store: importing', () => {
  it('writes every deck and puts their ids first in the given order', () => {
    const storage = new MemoryStorage();
    const store = createDeckStore(storage, makeId);
    store.saveDeck(deck('old', 'Old'));
    expect(store.importDecks([deck('x', 'X'), deck('y', 'Y')])).toEqual({ ok: true });
    expect(store.readIndex()).toEqual(['x', 'y', 'old']);
    expect(store.readDeck('y')).toEqual(deck('y', 'Y'));
  });

  it('never overwrites a stored deck', () => {
    const storage = new MemoryStorage();
    const store = createDeckStore(storage, makeId);
    store.saveDeck(deck('a', 'Mine'));
    const result = store.importDecks([deck('new', 'New'), deck('a', 'Theirs')]);
    expect(result.ok).toBe(false);
    expect(store.readDeck('a')?.name).toBe('Mine');
    expect(storage.getItem(deckKey('new'))).toBeNull();
    expect(store.readIndex()).toEqual(['a']);
  });

  it('removes what it wrote when the quota runs out', () => {
    const storage = new MemoryStorage();
    const store = createDeckStore(storage, makeId);
    const setItem = storage.setItem.bind(storage);
    storage.setItem = (key, value) => {
      if (key === INDEX_KEY) throw new DOMException('full', 'QuotaExceededError');
      setItem(key, value);
    };
    const result = store.importDecks([deck('x', 'X'), deck('y', 'Y')]);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(/^Storage is full: the decks could not be saved/);
    expect(storage.data.size).toBe(0);
  });
});

describe('deck store: export and reminder times', () => {
  it('records and reads the times, ignoring unreadable values', () => {
    const storage = new MemoryStorage();
    const store = createDeckStore(storage, makeId);
    expect(store.readLastExport()).toBeNull();
    store.recordExport(new Date('2025-02-03T04:05:06.000Z'));
    expect(store.readLastExport()).toBe('2025-02-03T04:05:06.000Z');
    expect(storage.getItem(LAST_EXPORT_KEY)).toBe('"2025-02-03T04:05:06.000Z"');
    store.dismissReminder(new Date('2025-03-01T00:00:00.000Z'));
    expect(store.readReminderDismissed()).toBe('2025-03-01T00:00:00.000Z');
    storage.setItem(REMINDER_DISMISSED_KEY, '"soon"');
    expect(store.readReminderDismissed()).toBeNull();
    storage.setItem(LAST_EXPORT_KEY, '{');
    expect(store.readLastExport()).toBeNull();
  });

  it('does not throw when the time cannot be written', () => {
    const store = createDeckStore(new MemoryStorage(10), makeId);
    expect(() => store.recordExport(new Date())).not.toThrow();
    expect(createDeckStore(null, makeId).readLastExport()).toBeNull();
  });
});

describe('deck store: review logs and sessions', () => {
  const T0 = Date.UTC(2026, 0, 5, 9);
  const log = recordMark(emptyReviews(), 'x-c1', 'good', T0);

  it('writes a review log under reviews:{deckId} and reads it back validated', () => {
    const storage = new MemoryStorage();
    const store = createDeckStore(storage, makeId);
    expect(store.readReviews('x')).toEqual(emptyReviews());
    expect(store.writeReviews('x', log)).toEqual({ ok: true });
    expect(JSON.parse(storage.getItem(reviewsKey('x')) ?? '')).toMatchObject({ type: 'reviews', version: 1 });
    expect(store.readReviews('x')).toEqual(log);
    storage.setItem(reviewsKey('x'), '{"type":"reviews","version":1,"log":');
    expect(store.readReviews('x')).toEqual(emptyReviews());
  });

  it('reports a full quota in words and keeps the log already stored', () => {
    const storage = new MemoryStorage();
    const store = createDeckStore(storage, makeId);
    store.writeReviews('x', log);
    const before = storage.getItem(reviewsKey('x'));
    const setItem = storage.setItem.bind(storage);
    storage.setItem = (key, value) => {
      if (key === reviewsKey('x')) throw new DOMException('full', 'QuotaExceededError');
      setItem(key, value);
    };
    const result = store.writeReviews('x', recordMark(log, 'x-c1', 'again', T0 + 60_000));
    expect(result).toEqual({
      ok: false,
      error: 'Storage is full: this review could not be saved. Delete decks you no longer need to free space; nothing saved before was lost.',
    });
    expect(storage.getItem(reviewsKey('x'))).toBe(before);
  });

  it('removes the log and the unfinished session with their deck', () => {
    const storage = new MemoryStorage();
    const store = createDeckStore(storage, makeId);
    store.saveDeck(deck('x', 'X'));
    store.writeReviews('x', log);
    store.writeSession('x', { mode: 'all', tag: '', pool: ['x-c1'], order: ['x-c1'], position: 0, known: [], unknown: [] });
    expect(store.readSession('x')).not.toBeNull();
    store.deleteDeck('x');
    expect(storage.getItem(reviewsKey('x'))).toBeNull();
    expect(storage.getItem(sessionKey('x'))).toBeNull();
  });

  it('imports decks with their logs, and takes both back when the import fails', () => {
    const storage = new MemoryStorage();
    const store = createDeckStore(storage, makeId);
    expect(store.importDecks([deck('x', 'X'), deck('y', 'Y')], { x: log })).toEqual({ ok: true });
    expect(store.readReviews('x')).toEqual(log);
    expect(storage.getItem(reviewsKey('y'))).toBeNull();
    expect(store.readAllReviews(['x', 'y'])).toEqual({ x: log });

    const other = new MemoryStorage();
    const failing = createDeckStore(other, makeId);
    const setItem = other.setItem.bind(other);
    other.setItem = (key, value) => {
      if (key === INDEX_KEY) throw new DOMException('full', 'QuotaExceededError');
      setItem(key, value);
    };
    expect(failing.importDecks([deck('x', 'X')], { x: log }).ok).toBe(false);
    expect(other.data.size).toBe(0);
  });

  it('remembers the practice options', () => {
    const store = createDeckStore(new MemoryStorage(), makeId);
    expect(store.readPracticeOptions()).toEqual({ typing: false, strict: false });
    store.writePracticeOptions({ typing: true, strict: true });
    expect(store.readPracticeOptions()).toEqual({ typing: true, strict: true });
  });
});

describe('deck store: reading again what did not change', () => {
  it('gives the same deck and log while their stored text is unchanged, and a new one once it changes', () => {
    const storage = new MemoryStorage();
    const store = createDeckStore(storage, () => 'gen');
    const deck = normaliseForSave('a', { ...defaultMeta(), name: 'A' }, [{ ...emptyCard('c'), front: 'x', back: 'y' }], new Date(0));
    store.saveDeck(deck);
    store.writeReviews('a', recordMark(emptyReviews(), 'c', 'good', 1000));
    const first = store.readDeck('a');
    const log = store.readReviews('a');
    expect(store.readDeck('a')).toBe(first);
    expect(store.readReviews('a')).toBe(log);
    // A write by anyone (sync writes the storage itself) is seen.
    storage.setItem(deckKey('a'), JSON.stringify({ ...deck, name: 'B' }));
    expect(store.readDeck('a')?.name).toBe('B');
    store.writeReviews('a', recordMark(log, 'c', 'again', 2000));
    expect(store.readReviews('a')).not.toBe(log);
    expect(store.readReviews('a').log).toHaveLength(2);
    store.deleteDeck('a');
    expect(store.readDeck('a')).toBeNull();
    expect(store.readReviews('a').log).toEqual([]);
  });
});
