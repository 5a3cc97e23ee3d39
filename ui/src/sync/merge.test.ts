// Property tests of the merge (random states, and random interleavings of edits, deletions,
// reviews and syncs on two browsers sharing a vault), in the manner of actual's sync tests.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MemoryStorage } from '../lib/memoryStorage';
import { CONFLICT_SUFFIX, conflictId, emptyState, isLive, merge, sameState, unionLogs, type DeckEntry, type Mark, type VaultState } from './merge';
import { applyState, baseOf, deckKey, emptyBase, INDEX_KEY, localState, readLocal, reviewsKey, type Base } from './local';

const ids = ['a', 'b', 'c'];
const iso = (ms: number) => new Date(ms).toISOString();

const entryArb: fc.Arbitrary<DeckEntry> = fc
  .record({
    savedAt: fc.integer({ min: 1, max: 6 }),
    back: fc.integer({ min: 0, max: 6 }),
    deleted: fc.boolean(),
    name: fc.constantFrom('Verbs', 'Nouns'),
    cards: fc.array(fc.constantFrom('un', 'deux', 'trois'), { maxLength: 3 }),
  })
  .map(({ savedAt, back, deleted, name, cards }) =>
    deleted
      ? { savedAt, baseAt: Math.max(0, savedAt - back), deleted: true as const }
      : {
          savedAt,
          baseAt: Math.max(0, savedAt - back),
          deck: { name, cards: cards.map((front) => ({ id: front, front, back: front })), createdAt: iso(savedAt), type: 'deck', version: 1 },
        },
  );

const markArb: fc.Arbitrary<Mark> = fc.tuple(fc.constantFrom('c1', 'c2'), fc.integer({ min: 0, max: 5 }), fc.constantFrom('good', 'again'));

const stateArb: fc.Arbitrary<VaultState> = fc.record({
  decks: fc.dictionary(fc.constantFrom(...ids), entryArb),
  reviews: fc.dictionary(
    fc.constantFrom(...ids),
    fc.record({ newPerDay: fc.integer({ min: 0, max: 30 }), setAt: fc.integer({ min: 0, max: 4 }), log: fc.array(markArb, { maxLength: 5 }).map((log) => unionLogs(log, [])) }),
  ),
  calendars: fc.record({ savedAt: fc.integer({ min: 0, max: 3 }), list: fc.array(fc.constantFrom('work', 'home'), { maxLength: 2 }) }),
});

describe('merge', () => {
  it('is commutative', () => {
    fc.assert(fc.property(stateArb, stateArb, (a, b) => sameState(merge(a, b), merge(b, a))));
  });

  it('is idempotent and absorbs what it merged', () => {
    fc.assert(
      fc.property(stateArb, stateArb, (a, b) => {
        const m = merge(a, b);
        return sameState(merge(m, m), m) && sameState(merge(m, b), m) && sameState(merge(m, a), m);
      }),
    );
  });

  it('never drops a version the winner did not see: it becomes a named copy', () => {
    fc.assert(
      fc.property(stateArb, stateArb, (a, b) => {
        const m = merge(a, b);
        for (const side of [a, b]) {
          for (const [id, entry] of Object.entries(side.decks)) {
            if (!isLive(entry)) continue;
            const winner = m.decks[id];
            if (!winner) return false;
            const kept = isLive(winner) && JSON.stringify(winner.deck.cards) === JSON.stringify(entry.deck.cards);
            const seen = winner.baseAt >= entry.savedAt;
            const copy = m.decks[conflictId(id, entry)];
            if (!kept && !seen && !copy) return false;
          }
        }
        return true;
      }),
    );
  });

  it('a concurrent edit keeps both: the later save, and the other as a copy named so', () => {
    const deck = (name: string, front: string, at: number) => ({ name, cards: [{ id: front, front, back: '?' }], createdAt: iso(at) });
    const a: VaultState = { ...emptyState(), decks: { d: { savedAt: 20, baseAt: 10, deck: deck('Verbs', 'être', 20) } } };
    const b: VaultState = { ...emptyState(), decks: { d: { savedAt: 15, baseAt: 10, deck: deck('Verbs', 'avoir', 15) } } };
    const m = merge(a, b);
    const winner = m.decks.d;
    const copy = m.decks[conflictId('d', { savedAt: 15, baseAt: 10, deck: {} })];
    expect(winner && isLive(winner) && winner.deck.cards).toEqual([{ id: 'être', front: 'être', back: '?' }]);
    expect(copy && isLive(copy) && copy.deck.name).toBe(`Verbs${CONFLICT_SUFFIX}`);
    // A later edit that had seen the other version replaces it without a copy.
    const c: VaultState = { ...emptyState(), decks: { d: { savedAt: 30, baseAt: 20, deck: deck('Verbs', 'aller', 30) } } };
    expect(Object.keys(merge(a, c).decks)).toEqual(['d']);
  });

  it('a deletion wins over what it saw and stays deleted; reviews go with the deck', () => {
    const live: DeckEntry = { savedAt: 10, baseAt: 0, deck: { name: 'Verbs', cards: [], createdAt: iso(10) } };
    const gone: DeckEntry = { savedAt: 12, baseAt: 10, deleted: true };
    const a: VaultState = { ...emptyState(), decks: { d: live }, reviews: { d: { newPerDay: 20, setAt: 0, log: [['c', 1, 'good']] } } };
    const b: VaultState = { ...emptyState(), decks: { d: gone } };
    const m = merge(a, b);
    expect(m.decks).toEqual({ d: gone });
    expect(m.reviews).toEqual({});
    expect(merge(m, a)).toEqual(m);
  });

  it('unites review logs by mark, in time order', () => {
    const a: Mark[] = [['x', 1, 'good'], ['y', 3, 'again']];
    const b: Mark[] = [['x', 1, 'good'], ['x', 2, 'again']];
    expect(unionLogs(a, b)).toEqual([['x', 1, 'good'], ['x', 2, 'again'], ['y', 3, 'again']]);
  });
});

// --- Two browsers and a vault -------------------------------------------------------------------

interface Browser {
  storage: MemoryStorage;
  base: Base;
}

type Op =
  | { kind: 'create'; browser: number; deck: string }
  | { kind: 'edit'; browser: number; deck: string }
  | { kind: 'delete'; browser: number; deck: string }
  | { kind: 'review'; browser: number; deck: string }
  | { kind: 'sync'; browser: number };

const opArb = (withDeletes: boolean): fc.Arbitrary<Op> => {
  const browser = fc.integer({ min: 0, max: 1 });
  const deck = fc.constantFrom('d1', 'd2', 'd3');
  const kinds = [
    fc.record({ kind: fc.constant('create' as const), browser, deck }),
    fc.record({ kind: fc.constant('edit' as const), browser, deck }),
    fc.record({ kind: fc.constant('review' as const), browser, deck }),
    fc.record({ kind: fc.constant('sync' as const), browser }),
  ];
  if (withDeletes) kinds.push(fc.record({ kind: fc.constant('delete' as const), browser, deck }) as never);
  return fc.oneof(...kinds);
};

function readDeck(storage: Storage, id: string): { name: string; cards: { id: string; front: string; back: string }[] } | null {
  const raw = storage.getItem(deckKey(id));
  return raw === null ? null : (JSON.parse(raw) as { name: string; cards: { id: string; front: string; back: string }[] });
}

function saveDeck(storage: Storage, id: string, deck: object, now: number) {
  storage.setItem(deckKey(id), JSON.stringify({ ...deck, id, createdAt: iso(now), type: 'deck', version: 1 }));
  const index = JSON.parse(storage.getItem(INDEX_KEY) ?? '[]') as string[];
  storage.setItem(INDEX_KEY, JSON.stringify([id, ...index.filter((other) => other !== id)]));
}

function simulate(ops: Op[]) {
  const browsers: Browser[] = [0, 1].map(() => ({ storage: new MemoryStorage(), base: emptyBase() }));
  let vault = emptyState();
  let now = 1_700_000_000_000;
  let text = 0;
  const added: string[] = [];
  const sync = (browser: Browser) => {
    now += 1;
    const snapshot = readLocal(browser.storage);
    const merged = merge(vault, localState(snapshot, browser.base, now));
    applyState(browser.storage, merged, snapshot);
    browser.base = baseOf(merged);
    vault = merged;
  };
  for (const op of ops) {
    now += 1;
    const browser = browsers[op.browser];
    if (!browser) continue;
    const { storage } = browser;
    if (op.kind === 'sync') sync(browser);
    else if (op.kind === 'create' && !readDeck(storage, op.deck)) {
      const front = `card ${(text += 1)}`;
      added.push(front);
      saveDeck(storage, `${op.deck}-${op.browser}-${now}`, { name: op.deck, cards: [{ id: front, front, back: 'x' }] }, now);
    } else if (op.kind === 'edit') {
      const id = (JSON.parse(storage.getItem(INDEX_KEY) ?? '[]') as string[])[0];
      const deck = id === undefined ? null : readDeck(storage, id);
      if (id === undefined || !deck) continue;
      const front = `card ${(text += 1)}`;
      added.push(front);
      saveDeck(storage, id, { ...deck, cards: [...deck.cards, { id: front, front, back: 'x' }] }, now);
    } else if (op.kind === 'delete') {
      const index = JSON.parse(storage.getItem(INDEX_KEY) ?? '[]') as string[];
      const id = index[0];
      if (id === undefined) continue;
      storage.removeItem(deckKey(id));
      storage.removeItem(reviewsKey(id));
      storage.setItem(INDEX_KEY, JSON.stringify(index.slice(1)));
    } else if (op.kind === 'review') {
      const id = (JSON.parse(storage.getItem(INDEX_KEY) ?? '[]') as string[])[0];
      if (id === undefined) continue;
      const raw = storage.getItem(reviewsKey(id));
      const record = raw ? (JSON.parse(raw) as { log: Mark[] }) : { type: 'reviews', version: 1, newPerDay: 20, items: {}, log: [] };
      storage.setItem(reviewsKey(id), JSON.stringify({ ...record, log: [...record.log, ['c', now, 'good']] }));
    }
  }
  // Everyone syncs until nothing changes: two rounds suffice.
  for (let round = 0; round < 2; round += 1) for (const browser of browsers) sync(browser);
  return { browsers, vault, added };
}

const visible = (storage: MemoryStorage) => Object.fromEntries([...storage.data.entries()].filter(([key]) => (key.startsWith('decks:') && key !== INDEX_KEY) || key.startsWith('reviews:')).map(([key, value]) => [key, JSON.parse(value) as unknown]));

describe('two browsers syncing through a vault', () => {
  it('converge to the same decks, index and review logs in any interleaving', () => {
    fc.assert(
      fc.property(fc.array(opArb(true), { maxLength: 40 }), (ops) => {
        const { browsers } = simulate(ops);
        const [one, two] = browsers;
        if (!one || !two) return false;
        expect(visible(one.storage)).toEqual(visible(two.storage));
        expect(JSON.parse(one.storage.getItem(INDEX_KEY) ?? '[]')).toEqual(expect.arrayContaining(JSON.parse(two.storage.getItem(INDEX_KEY) ?? '[]') as string[]));
        return true;
      }),
      { numRuns: 300 },
    );
  });

  it('lose no card text when nobody deletes', () => {
    fc.assert(
      fc.property(fc.array(opArb(false), { maxLength: 40 }), (ops) => {
        const { browsers, added } = simulate(ops);
        for (const browser of browsers) {
          const texts = new Set(
            Object.entries(visible(browser.storage))
              .filter(([key]) => key.startsWith('decks:'))
              .flatMap(([, deck]) => (deck as { cards: { front: string }[] }).cards.map((card) => card.front)),
          );
          for (const front of added) expect(texts).toContain(front);
        }
        return true;
      }),
      { numRuns: 300 },
    );
  });

  it('a review made offline on each browser is in both logs after syncing', () => {
    const { browsers } = simulate([
      { kind: 'create', browser: 0, deck: 'd1' },
      { kind: 'sync', browser: 0 },
      { kind: 'sync', browser: 1 },
      { kind: 'review', browser: 0, deck: 'd1' },
      { kind: 'review', browser: 1, deck: 'd1' },
    ]);
    for (const browser of browsers) {
      const key = [...browser.storage.data.keys()].find((k) => k.startsWith('reviews:'));
      const log = (JSON.parse(browser.storage.getItem(key ?? '') ?? '{}') as { log: Mark[] }).log;
      expect(log).toHaveLength(2);
    }
  });
});

describe('the vault applied to a browser', () => {
  it('changes nothing the next time when nothing changed here', () => {
    const storage = new MemoryStorage();
    saveDeck(storage, 'x', { name: 'Verbs', cards: [] }, 1000);
    const snapshot = readLocal(storage);
    const state = localState(snapshot, emptyBase(), 2000);
    applyState(storage, state, snapshot);
    const again = localState(readLocal(storage), baseOf(state), 3000);
    expect(again).toEqual(state);
  });

  it('a local edit on a clock behind the vault still counts as later', () => {
    const storage = new MemoryStorage();
    saveDeck(storage, 'x', { name: 'Verbs', cards: [] }, 500);
    const base: Base = { ...emptyBase(), decks: { x: { savedAt: 900, baseAt: 0 } } };
    const state = localState(readLocal(storage), base, 1000);
    expect(state.decks.x?.savedAt).toBe(901);
    expect(state.decks.x && isLive(state.decks.x) && state.decks.x.deck.createdAt).toBe(iso(901));
  });
});
