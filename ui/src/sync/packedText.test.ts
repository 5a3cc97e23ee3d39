// Large stored values are deflated and read back exactly; small and earlier plain ones stay JSON.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '../lib/memoryStorage';
import { makeStamp } from './hlc';
import { emptyBase, type Base } from './local';
import type { CardDoc } from './merge';
import { PACK_FROM, PACKED_PREFIX, packText, unpackText } from './packedText';
import { BASE_KEY, createSyncStore } from './state';

describe('packed text', () => {
  it('reads back any text exactly, small ones stored as they are', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40_000 }), (text) => {
        const packed = packText(text);
        expect(packed.startsWith(PACKED_PREFIX)).toBe(text.length >= PACK_FROM);
        expect(unpackText(packed)).toBe(text);
      }),
      { numRuns: 60 },
    );
  });

  it('says a damaged packed value is unreadable', () => {
    expect(unpackText(`${PACKED_PREFIX}AAAA`)).toBeNull();
    expect(unpackText(`${PACKED_PREFIX}not base64!`)).toBeNull();
  });
});

describe("the last merge's base in storage", () => {
  function bigBase(cards: number): Base {
    const at = makeStamp(1_700_000_000_000, 0, 'device');
    const entries = Array.from({ length: cards }, (_, i): [string, CardDoc] => [
      `card-${i}`,
      { fields: { front: { versions: [{ v: `front ${i}`, at, base: '' }], gone: [] } }, pos: { v: i, at } },
    ]);
    return {
      ...emptyBase(),
      decks: { d: { meta: { name: { v: 'Verbs', at } }, cards: Object.fromEntries(entries) } },
      shown: { d: '2026-01-01T00:00:00.000Z' },
    };
  }

  it('is stored deflated when large, a fraction of its JSON, and read back equal', () => {
    const storage = new MemoryStorage();
    const store = createSyncStore(storage);
    const base = bigBase(2_000);
    store.setBase(base, 'hash');
    const stored = storage.getItem(BASE_KEY) ?? '';
    expect(stored.startsWith(PACKED_PREFIX)).toBe(true);
    expect(stored.length).toBeLessThan(JSON.stringify(base).length / 5);
    expect(store.base()).toEqual(base);
  });

  it('reads a plain JSON base as earlier versions wrote it', () => {
    const storage = new MemoryStorage();
    const base = bigBase(3);
    storage.setItem(BASE_KEY, JSON.stringify({ version: 2, ...base }));
    expect(createSyncStore(storage).base()).toEqual(base);
  });
});
