// The storage functions behind import and export: adding decks in one step, and the times of the
// last export and of the last dismissed backup reminder.
import { describe, expect, it } from 'vitest';
import { defaultMeta, emptyCard, normaliseForSave, type Deck } from './deck';
import { createDeckStore, deckKey, INDEX_KEY, LAST_EXPORT_KEY, REMINDER_DISMISSED_KEY } from './storage';
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
