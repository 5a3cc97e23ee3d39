// The media store over an in-memory IndexedDB (fake-indexeddb): files kept once by SHA-256 with
// their type, read back byte for byte, counted, pruned to what cards refer to, a full disk said
// in words with nothing stored lost; and the import's lifecycle (no prune while it stores).
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { createMediaStore, MediaStoreError } from './store';
import { pruneMedia, referencedByDecks, storeFiles, whileImporting } from './lifecycle';
import { createDeckStore } from '../storage';
import { defaultMeta, emptyCard, normaliseForSave } from '../deck';
import type { MediaRef } from './ref';

let databases = 0;
const fresh = () => createMediaStore(`media-test-${(databases += 1)}`);
const bytes = (text: string) => new TextEncoder().encode(text);
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

class MemoryStorage implements Storage {
  private items = new Map<string, string>();
  get length() {
    return this.items.size;
  }
  clear() {
    this.items.clear();
  }
  getItem(key: string) {
    return this.items.get(key) ?? null;
  }
  key(index: number) {
    return [...this.items.keys()][index] ?? null;
  }
  removeItem(key: string) {
    this.items.delete(key);
  }
  setItem(key: string, value: string) {
    this.items.set(key, value);
  }
}

describe('media store', () => {
  it('keeps a file once under its SHA-256, with its type, and reads it back', async () => {
    const store = fresh();
    const hash = await store.put(bytes('woof'), 'audio/mpeg');
    expect(hash).toBe(sha('woof'));
    expect(await store.put(bytes('woof').buffer, 'audio/mpeg')).toBe(hash);
    expect(await store.hashes()).toEqual([hash]);
    const file = await store.get(hash);
    expect(file && new TextDecoder().decode(file.bytes)).toBe('woof');
    expect(file).toMatchObject({ hash, type: 'audio/mpeg', size: 4 });
    expect(await store.has(hash)).toBe(true);
    expect(await store.has('nope')).toBe(false);
    expect(await store.get('0'.repeat(64))).toBeUndefined();
  });

  it('counts its bytes and prunes what nothing refers to', async () => {
    const store = fresh();
    const a = await store.put(bytes('aaaa'), 'image/png');
    const b = await store.put(bytes('bbbbbb'), 'image/png');
    expect(await store.usage()).toBe(10);
    expect(await store.prune(new Set([b]))).toBe(1);
    expect(await store.hashes()).toEqual([b]);
    expect(await store.has(a)).toBe(false);
    expect(await store.usage()).toBe(6);
  });

  it('says a full disk in words and loses nothing already stored', async () => {
    const store = fresh();
    const kept = await store.put(bytes('kept'), 'image/png');
    const { IDBObjectStore: Store } = globalThis as unknown as { IDBObjectStore: { prototype: { put: (...args: unknown[]) => unknown } } };
    const original = Store.prototype.put;
    Store.prototype.put = function () {
      throw new DOMException('full', 'QuotaExceededError');
    };
    try {
      const error = await store.put(bytes('new'), 'image/png').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(MediaStoreError);
      expect(error).toMatchObject({ full: true, message: 'The device is full: the file was not kept. Everything stored before is still there.' });
    } finally {
      Store.prototype.put = original;
    }
    expect(await store.hashes()).toEqual([kept]);
  });
});

describe('media lifecycle', () => {
  const ref = (hash: string): MediaRef => ({ hash, name: 'x.png', kind: 'image', field: 'front' });

  it('keeps the files decks and drafts refer to, and prunes nothing while an import stores', async () => {
    const store = fresh();
    const decks = createDeckStore(new MemoryStorage());
    const inDeck = await store.put(bytes('deck'), 'image/png');
    const inDraft = await store.put(bytes('draft'), 'image/png');
    const loose = await store.put(bytes('loose'), 'image/png');
    const card = { ...emptyCard('c'), front: 'Hund', back: 'dog', media: [ref(inDeck)] };
    decks.saveDeck(normaliseForSave('d', { ...defaultMeta(), name: 'D' }, [card], new Date()));
    decks.writeDraft({ deckId: null, meta: defaultMeta(), cards: [{ ...emptyCard('e'), media: [ref(inDraft)] }] });
    expect(referencedByDecks(decks)).toEqual(new Set([inDeck, inDraft]));

    let during = -1;
    await whileImporting(async () => {
      await storeFiles([{ bytes: bytes('importing').buffer, type: 'image/png' }], store);
      during = await pruneMedia(decks, store);
    });
    expect(during).toBe(0);
    expect(await store.prune(referencedByDecks(decks))).toBe(2);
    expect(new Set(await store.hashes())).toEqual(new Set([inDeck, inDraft]));
    expect(await store.has(loose)).toBe(false);
  });
});
