import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '../lib/memoryStorage';
import { v1Stamp } from './deckDoc';
import { makeStamp } from './hlc';
import { emptyBase, type Base } from './local';
import { BASE_KEY, createSyncStore, PENDING_VAULT_KEY, RETIRED_KEY, SHARES_KEY, SHARES_SEEN_KEY, VAULT_KEY } from './state';

const id = '0123456789abcdef0123456789abcdef';

describe("sync's stored state", () => {
  it('reads back what it wrote', () => {
    const store = createSyncStore(new MemoryStorage());
    const vault = { id, key: 'k-1', token: 't_2', version: 3, lastSyncedAt: '2026-01-01T00:00:00.000Z', gone: false, seenVersion: 4, boundSeen: true };
    store.setVault(vault);
    expect(store.vault()).toEqual(vault);
    store.setPendingVault({ key: 'k', token: 't' });
    expect(store.pendingVault()).toEqual({ key: 'k', token: 't' });
    store.setPendingVault({ key: 'k', token: 't', id });
    expect(store.pendingVault()).toEqual({ key: 'k', token: 't', id });
    const at = makeStamp(2, 0, 'dev');
    const base: Base = {
      ...emptyBase(),
      decks: {
        a: { meta: { name: { v: 'Verbs', at } }, cards: { c: { fields: { front: { versions: [{ v: 'un', at, base: '' }], gone: [] } }, pos: { v: 0, at } } } },
        b: { meta: {}, cards: {}, deleted: { at, seen: at } },
      },
      shown: { a: '1970-01-01T00:00:00.002Z' },
      newPerDay: { a: { value: 5, setAt: at } },
      logs: { a: [['c', 7, 'good']] },
      seeds: { a: { c: { through: 7, state: [1, 2] } } },
      calendarsText: '[]',
      calendarsAt: at,
    };
    store.setBase(base, 'hash');
    expect(store.base()).toEqual(base);
    expect(store.syncedHash()).toBe('hash');
    store.setShare('deck', { key: 'k', token: 't' });
    store.setShare('other', { id, key: 'k', token: 't' });
    store.setShare('deck', null);
    expect(store.shares()).toEqual({ other: { id, key: 'k', token: 't' } });
    store.setShare('made', { key: 'k', token: 't', chosenId: id });
    expect(store.shares().made).toEqual({ key: 'k', token: 't', chosenId: id });
    expect(store.shareSeen(id)).toBeNull();
    store.setShareSeen(id, { seenVersion: 2, boundSeen: true });
    expect(store.shareSeen(id)).toEqual({ seenVersion: 2, boundSeen: true });
    store.setRetired([{ id, token: 't' }]);
    expect(store.retired()).toEqual([{ id, token: 't' }]);
    store.setRetired([]);
    expect(store.retired()).toEqual([]);
  });

  it('reads a vault from before "gone" and a missing version as the app now reads them', () => {
    const storage = new MemoryStorage();
    storage.setItem(VAULT_KEY, JSON.stringify({ id, key: 'k', token: 't', lastSyncedAt: null }));
    expect(createSyncStore(storage).vault()).toEqual({
      id,
      key: 'k',
      token: 't',
      version: 0,
      lastSyncedAt: null,
      gone: false,
      seenVersion: 0,
      boundSeen: false,
    });
  });

  it('reads values without their shape as absent, and drops bad entries', () => {
    const storage = new MemoryStorage();
    const store = createSyncStore(storage);
    for (const bad of ['{', '[]', '{"id":"x","key":"k","token":"t"}', `{"id":"${id}","key":"a b","token":"t"}`]) {
      storage.setItem(VAULT_KEY, bad);
      expect(store.vault(), bad).toBeNull();
    }
    storage.setItem(PENDING_VAULT_KEY, '{"key":"k"}');
    expect(store.pendingVault()).toBeNull();
    storage.setItem(BASE_KEY, '{"decks":{"a":{"savedAt":"x"},"b":{"savedAt":1,"baseAt":0}},"newPerDay":[]}');
    expect(store.base()).toEqual({ ...emptyBase(), legacy: { b: { savedAt: 1, baseAt: 0 } } });
    storage.setItem(BASE_KEY, 'null');
    expect(store.base()).toEqual(emptyBase());
    storage.setItem(SHARES_KEY, JSON.stringify({ a: { id: 'short', key: 'k', token: 't' }, b: { key: 'k', token: 't' }, c: 4 }));
    expect(store.shares()).toEqual({ b: { key: 'k', token: 't' } });
  });

  it('reads a v1 base (a savedAt per deck) as the legacy part of a v2 base, times as v1 stamps', () => {
    const storage = new MemoryStorage();
    storage.setItem(
      BASE_KEY,
      JSON.stringify({
        decks: { a: { savedAt: 2, baseAt: 1 }, b: { savedAt: 3, baseAt: 2, deleted: true } },
        newPerDay: { a: { value: 5, setAt: 1 } },
        calendarsText: '[]',
        calendarsAt: 4,
      }),
    );
    expect(createSyncStore(storage).base()).toEqual({
      ...emptyBase(),
      legacy: { a: { savedAt: 2, baseAt: 1 }, b: { savedAt: 3, baseAt: 2, deleted: true } },
      newPerDay: { a: { value: 5, setAt: v1Stamp(1) } },
      calendarsAt: v1Stamp(4),
    });
  });

  it('forgets the vault, the base and a create under way, but not the share links, what was seen of shares, or old vaults to remove', () => {
    const storage = new MemoryStorage();
    const store = createSyncStore(storage);
    store.setVault({ id, key: 'k', token: 't', version: 1, lastSyncedAt: null, gone: false, seenVersion: 1, boundSeen: true });
    store.setShareSeen(id, { seenVersion: 1, boundSeen: true });
    store.setRetired([{ id, token: 't' }]);
    store.setPendingVault({ key: 'k', token: 't' });
    store.setBase(emptyBase(), 'h');
    store.setShare('a', { id, key: 'k', token: 't' });
    store.forget();
    expect([...storage.data.keys()].sort()).toEqual([RETIRED_KEY, SHARES_KEY, SHARES_SEEN_KEY].sort());
    expect(store.syncedHash()).toBeNull();
  });

  it('refuses to keep a pending create without storage, so none is sent untracked', () => {
    expect(() => createSyncStore(null).setPendingVault({ key: 'k', token: 't' })).toThrow();
  });
});
