// The vault in parts: buckets the same on every device, names that follow content and the key, and
// opening that takes known parts as they are, fetches the rest, and refuses a part that is not the
// one its name says (swapped, moved from another vault, changed), a missing one, and a whole that
// passes the bounds.
import { describe, expect, it } from 'vitest';
import { newKey } from './crypto';
import { OPEN_LIMITS } from './limits';
import type { DeckDoc, DeckReviews, VaultState } from './merge';
import { baseOf } from './local';
import { assemble, baseContent, BUCKETS, bucketOf, manifestOf, manifestParts, nameParts, partsOf, sealPart, type NamedPart } from './vaultParts';

const doc = (name: string) => ({ meta: { name: { v: name, at: '0000000000001-0000-a' } }, cards: {} });

function state(count: number): VaultState {
  const decks: Record<string, DeckDoc> = {};
  const reviews: Record<string, DeckReviews> = {};
  for (let i = 0; i < count; i += 1) {
    decks[`deck-${i}`] = doc(`Deck ${i}`);
    reviews[`deck-${i}`] = { newPerDay: 20, setAt: '', log: [[`card-${i}`, 1_000 + i, 'good']] };
  }
  return { decks, reviews, calendars: { savedAt: '', list: [] } };
}

async function sealed(parts: readonly NamedPart[], key: string, vaultId: string) {
  return new Map(await Promise.all(parts.map(async (part) => [part.name, await sealPart(part, key, vaultId)] as const)));
}

const VAULT = 'a'.repeat(32);

describe('buckets and names', () => {
  it('spreads decks over the buckets the same way every time, each deck and its log in one part', () => {
    const ids = Array.from({ length: 300 }, (_, i) => `deck-${i}`);
    for (const id of ids) {
      expect(bucketOf(id)).toBe(bucketOf(id));
      expect(bucketOf(id)).toBeGreaterThanOrEqual(0);
      expect(bucketOf(id)).toBeLessThan(BUCKETS);
    }
    expect(new Set(ids.map(bucketOf)).size).toBeGreaterThan(BUCKETS / 2);
    const parts = partsOf(state(300));
    expect(parts.length).toBeLessThanOrEqual(BUCKETS);
    expect(parts.flatMap((part) => Object.keys(part.decks)).sort()).toEqual(ids.sort());
    for (const part of parts) expect(Object.keys(part.reviews).sort()).toEqual(Object.keys(part.decks).sort());
  });

  it('names the parts a base remembers as the state it was made from, seeds and all', async () => {
    const key = await newKey();
    const seeded = state(40);
    const first = seeded.reviews['deck-0'];
    if (!first) throw new Error('no log');
    const withSeed: VaultState = {
      ...seeded,
      reviews: { ...seeded.reviews, 'deck-0': { ...first, seeds: { 'card-0': { through: 1_000, state: [1, 2, 3] } } } },
    };
    for (const whole of [seeded, withSeed]) {
      const names = (await nameParts(partsOf(whole), key)).map((part) => part.name);
      expect((await nameParts(partsOf(baseContent(baseOf(whole))), key)).map((part) => part.name)).toEqual(names);
    }
  });

  it('names a part by its content under the key: one deck changed renames one part only', async () => {
    const key = await newKey();
    const before = await nameParts(partsOf(state(60)), key);
    const again = await nameParts(partsOf(state(60)), key);
    expect(again.map((part) => part.name)).toEqual(before.map((part) => part.name));
    const changed = { ...state(60), decks: { ...state(60).decks, 'deck-7': doc('Renamed') } };
    const after = await nameParts(partsOf(changed), key);
    const renamed = after.filter((part, i) => part.name !== before[i]?.name);
    expect(renamed).toHaveLength(1);
    expect(Object.keys(renamed[0]?.value.decks ?? {})).toContain('deck-7');
    // Another key names the same content differently: names say nothing without it.
    const other = await nameParts(partsOf(state(60)), await newKey());
    expect(other.map((part) => part.name)).not.toEqual(before.map((part) => part.name));
    for (const part of after) expect(part.name).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it('reads a manifest’s names, refuses a malformed list, and leaves whole vaults alone', () => {
    const names = ['b'.repeat(22), 'a'.repeat(22)];
    expect(manifestParts(manifestOf(state(1), names))).toEqual(['a'.repeat(22), 'b'.repeat(22)]);
    expect(manifestParts({ type: 'hearth-vault', version: 2, decks: {} })).toBeNull();
    for (const parts of [['x', 'x'], ['bad name'], 'abc', Array.from({ length: 65 }, (_, i) => `p${i}`)]) {
      expect(() => manifestParts({ type: 'hearth-vault', version: 3, parts })).toThrow(/does not read/);
    }
  });
});

describe('assembling a vault from its parts', () => {
  it('takes known parts as they are and fetches only the others', async () => {
    const key = await newKey();
    const whole = state(100);
    const parts = await nameParts(partsOf(whole), key);
    const stored = await sealed(parts, key, VAULT);
    const known = new Map(parts.slice(1).map((part) => [part.name, part.value]));
    const fetched: string[] = [];
    const names = parts.map((part) => part.name);
    const value = await assemble(manifestOf(whole, names), names, {
      vaultId: VAULT,
      keyText: key,
      known,
      fetchPart: (name) => {
        fetched.push(name);
        return Promise.resolve(stored.get(name) ?? null);
      },
    });
    expect(fetched).toEqual([parts[0]?.name]);
    expect(value).toMatchObject({ type: 'hearth-vault', version: 2, decks: whole.decks, reviews: whole.reviews });
  });

  it('answers null when the server no longer has a part (another device wrote since)', async () => {
    const key = await newKey();
    const parts = await nameParts(partsOf(state(10)), key);
    const names = parts.map((part) => part.name);
    const value = await assemble(manifestOf(state(10), names), names, {
      vaultId: VAULT,
      keyText: key,
      known: new Map(),
      fetchPart: () => Promise.resolve(null),
    });
    expect(value).toBeNull();
  });

  it('refuses a part served under another name, one from another vault, and one whose content is not its name’s', async () => {
    const key = await newKey();
    const parts = await nameParts(partsOf(state(100)), key);
    const names = parts.map((part) => part.name);
    const [first, second] = parts;
    if (!first || !second) throw new Error('two parts expected');
    const stored = await sealed(parts, key, VAULT);
    const open = (serve: (name: string) => Uint8Array<ArrayBuffer> | null | undefined) =>
      assemble(manifestOf(state(100), names), names, {
        vaultId: VAULT,
        keyText: key,
        known: new Map(),
        fetchPart: (name) => Promise.resolve(serve(name) ?? null),
      });
    // Swapped: the first part's bytes served as the second.
    await expect(open((name) => (name === second.name ? stored.get(first.name) : stored.get(name)))).rejects.toThrow(/not written for it/);
    // Moved from another vault with the same key.
    const elsewhere = await sealed(parts, key, 'b'.repeat(32));
    await expect(open((name) => elsewhere.get(name))).rejects.toThrow(/not written for it/);
    // Sealed for its place, but holding other content than its name says.
    const forged = await sealPart({ name: first.name, value: second.value }, key, VAULT);
    await expect(open((name) => (name === first.name ? forged : stored.get(name)))).rejects.toThrow(/not written for it/);
  });

  it('keeps all the parts together within the bounds of one vault', async () => {
    const key = await newKey();
    const parts = await nameParts(partsOf(state(200)), key);
    const names = parts.map((part) => part.name);
    const stored = await sealed(parts, key, VAULT);
    const fetchPart = (name: string) => Promise.resolve(stored.get(name) ?? null);
    // Each part is small, but together they pass a bound on unpacked bytes…
    const smallest = Math.min(...parts.map((part) => JSON.stringify(part.value).length));
    const unpackedBytes = smallest * 3;
    await expect(
      assemble(manifestOf(state(200), names), names, { vaultId: VAULT, keyText: key, known: new Map(), fetchPart, limits: { ...OPEN_LIMITS, unpackedBytes } }),
    ).rejects.toThrow(/larger than this app opens/);
    // …and on decks counted over the whole vault.
    await expect(
      assemble(manifestOf(state(200), names), names, { vaultId: VAULT, keyText: key, known: new Map(), fetchPart, limits: { ...OPEN_LIMITS, decks: 150 } }),
    ).rejects.toThrow(/over 150 decks/);
  });
});
