// Sync with the features' real adapters, wired as RouterApp wires them: two browsers that save,
// edit, delete and review through the flashcards' own store and sync through one vault converge,
// lose no card, and a vault applied to a browser changes nothing the next time. (At the top of
// src, like RouterApp: the one place that sees sync and the features together.)
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MemoryStorage } from './lib/memoryStorage';
import type { SyncAdapters } from './lib/syncAdapters';
import { createCalendarsSyncAdapter } from './calendars/syncAdapter';
import { defaultMapping } from './calendars/calendar';
import { createCalendarStore } from './calendars/storage';
import { defaultMeta, emptyCard, type Deck } from './flashcards/deck';
import { createDeckStore, deckKey, type DeckStore } from './flashcards/storage';
import { recordMark, withNewPerDay } from './flashcards/srs/reviewLog';
import { createDecksSyncAdapter } from './flashcards/syncAdapter';
import { applyState, baseOf, emptyBase, localState, parseVault, readLocal, toVault, type Base } from './sync/local';
import { emptyState, isLive, merge, sameState } from './sync/merge';

const iso = (ms: number) => new Date(ms).toISOString();

interface Browser {
  storage: MemoryStorage;
  store: DeckStore;
  adapters: SyncAdapters;
  base: Base;
}

function browser(name: string): Browser {
  const storage = new MemoryStorage();
  let n = 0;
  const makeId = () => `${name}-${(n += 1)}`;
  return {
    storage,
    store: createDeckStore(storage, makeId),
    adapters: { decks: createDecksSyncAdapter(storage, makeId), calendars: createCalendarsSyncAdapter(storage) },
    base: emptyBase(),
  };
}

const deckOf = (id: string, name: string, fronts: string[], at: number): Deck => ({
  ...defaultMeta(),
  id,
  name,
  cards: fronts.map((front) => ({ ...emptyCard(front), front, back: 'x' })),
  createdAt: iso(at),
  type: 'deck',
  version: 1,
});

type Op =
  | { kind: 'create'; browser: number; deck: string }
  | { kind: 'edit'; browser: number }
  | { kind: 'delete'; browser: number }
  | { kind: 'review'; browser: number }
  | { kind: 'cap'; browser: number; cap: number }
  | { kind: 'sync'; browser: number };

const opArb = (withDeletes: boolean): fc.Arbitrary<Op> => {
  const who = fc.integer({ min: 0, max: 1 });
  const kinds: fc.Arbitrary<Op>[] = [
    fc.record({ kind: fc.constant('create' as const), browser: who, deck: fc.constantFrom('d1', 'd2', 'd3') }),
    fc.record({ kind: fc.constant('edit' as const), browser: who }),
    fc.record({ kind: fc.constant('review' as const), browser: who }),
    fc.record({ kind: fc.constant('cap' as const), browser: who, cap: fc.integer({ min: 0, max: 30 }) }),
    fc.record({ kind: fc.constant('sync' as const), browser: who }),
  ];
  if (withDeletes) kinds.push(fc.record({ kind: fc.constant('delete' as const), browser: who }));
  return fc.oneof(...kinds);
};

function simulate(ops: Op[]) {
  const browsers = [browser('one'), browser('two')];
  let vault = emptyState();
  let now = 1_700_000_000_000;
  let text = 0;
  const added: string[] = [];
  const sync = (b: Browser) => {
    now += 1;
    // The vault travels as JSON and is read with the adapters, as the engine reads it.
    const remote = parseVault(JSON.parse(JSON.stringify(toVault(vault))), b.adapters);
    if (!remote) throw new Error('the vault did not read back');
    const snapshot = readLocal(b.adapters);
    const merged = merge(remote, localState(snapshot, b.base, now));
    applyState(b.adapters, merged, snapshot);
    b.base = baseOf(merged);
    vault = merged;
  };
  for (const op of ops) {
    now += 1;
    const b = browsers[op.browser];
    if (!b) continue;
    const first = b.store.readIndex()[0];
    if (op.kind === 'sync') sync(b);
    else if (op.kind === 'create') {
      const front = `card ${(text += 1)}`;
      added.push(front);
      b.store.saveDeck(deckOf(`${op.deck}-${op.browser}-${now}`, op.deck, [front], now));
    } else if (first === undefined) continue;
    else if (op.kind === 'edit') {
      const deck = b.store.readDeck(first);
      if (!deck) continue;
      const front = `card ${(text += 1)}`;
      added.push(front);
      b.store.saveDeck({ ...deck, cards: [...deck.cards, { ...emptyCard(front), front, back: 'x' }], createdAt: iso(now) });
    } else if (op.kind === 'delete') b.store.deleteDeck(first);
    else if (op.kind === 'review') b.store.writeReviews(first, recordMark(b.store.readReviews(first), `${first}-c`, 'good', now));
    else b.store.writeReviews(first, withNewPerDay(b.store.readReviews(first), op.cap));
  }
  // Everyone syncs until nothing changes: two rounds suffice.
  for (let round = 0; round < 2; round += 1) for (const b of browsers) sync(b);
  return { browsers, vault, added };
}

/** The decks and review logs as each browser's own store reads them. */
const visible = (b: Browser) => Object.fromEntries(b.store.listDecks().map((deck) => [deck.id, { deck, reviews: b.store.readReviews(deck.id) }]));

describe('two browsers syncing through a vault with the real adapters', () => {
  it('converge to the same decks, lists and review logs in any interleaving', () => {
    fc.assert(
      fc.property(fc.array(opArb(true), { maxLength: 40 }), (ops) => {
        const { browsers } = simulate(ops);
        const [one, two] = browsers;
        if (!one || !two) return false;
        expect(visible(one)).toEqual(visible(two));
        expect([...one.store.readIndex()].sort()).toEqual([...two.store.readIndex()].sort());
        return true;
      }),
      { numRuns: 200 },
    );
  });

  it('lose no card text when nobody deletes', () => {
    fc.assert(
      fc.property(fc.array(opArb(false), { maxLength: 40 }), (ops) => {
        const { browsers, added } = simulate(ops);
        for (const b of browsers) {
          const texts = new Set(b.store.listDecks().flatMap((deck) => deck.cards.map((card) => card.front)));
          for (const front of added) expect(texts).toContain(front);
        }
        return true;
      }),
      { numRuns: 200 },
    );
  });

  it('a review made offline on each browser is in both logs after syncing', () => {
    const { browsers } = simulate([
      { kind: 'create', browser: 0, deck: 'd1' },
      { kind: 'sync', browser: 0 },
      { kind: 'sync', browser: 1 },
      { kind: 'review', browser: 0 },
      { kind: 'review', browser: 1 },
    ]);
    for (const b of browsers) {
      const [id] = b.store.readIndex();
      expect(id && b.store.readReviews(id).log).toHaveLength(2);
    }
  });
});

describe('the vault applied to a browser', () => {
  it('changes nothing the next time when nothing changed here', () => {
    const b = browser('a');
    b.store.saveDeck(deckOf('x', 'Verbs', ['un'], 1000));
    b.store.writeReviews('x', recordMark(b.store.readReviews('x'), 'un', 'good', 1500));
    createCalendarStore(b.storage).upsert({ id: 'c', name: 'Work', url: 'https://x/c.ics', mapping: defaultMapping(), lastBuiltAt: '' });
    const snapshot = readLocal(b.adapters);
    const state = localState(snapshot, emptyBase(), 2000);
    expect(applyState(b.adapters, state, snapshot)).toBe(false);
    const before = new Map(b.storage.data);
    const again = localState(readLocal(b.adapters), baseOf(state), 3000);
    expect(again).toEqual(state);
    expect(applyState(b.adapters, merge(state, again), readLocal(b.adapters))).toBe(false);
    expect(b.storage.data).toEqual(before);
  });

  it('a local edit on a clock behind the vault still counts as later', () => {
    const b = browser('a');
    b.store.saveDeck(deckOf('x', 'Verbs', [], 500));
    const base: Base = { ...emptyBase(), decks: { x: { savedAt: 900, baseAt: 0 } } };
    const state = localState(readLocal(b.adapters), base, 1000);
    expect(state.decks.x?.savedAt).toBe(901);
    expect(state.decks.x && isLive(state.decks.x) && state.decks.x.deck.createdAt).toBe(iso(901));
  });

  it('a deck this browser cannot read is not sent as deleted, and the vault’s copy replaces it', () => {
    const b = browser('a');
    b.store.saveDeck(deckOf('x', 'Verbs', ['un'], 1000));
    const synced = localState(readLocal(b.adapters), emptyBase(), 2000);
    b.base = baseOf(synced);
    // Its record is damaged here.
    b.storage.setItem(deckKey('x'), '{"type":"deck","version":');
    const local = localState(readLocal(b.adapters), b.base, 3000);
    expect(local.decks.x).toBeUndefined();
    const merged = merge(synced, local);
    expect(merged.decks.x && isLive(merged.decks.x)).toBe(true);
    applyState(b.adapters, merged, readLocal(b.adapters));
    expect(b.store.readDeck('x')?.name).toBe('Verbs');
    expect(b.store.readIndex()).toEqual(['x']);
  });

  it('a vault from another device is read with the features’ checks; what they cannot read is left out', () => {
    const b = browser('a');
    const vault = toVault({
      ...emptyState(),
      decks: {
        ok: { savedAt: 1, baseAt: 0, deck: { ...deckOf('ok', 'Fine', ['a'], 1) } },
        later: { savedAt: 2, baseAt: 0, deck: { id: 'later', name: 'From a newer app', createdAt: iso(2), type: 'deck', version: 2 } },
      },
      reviews: {
        ok: {
          newPerDay: 50_000,
          setAt: 3,
          log: [
            ['a', 1, 'good'],
            ['a', 2, 'shrug'],
          ],
        },
      },
    });
    const read = parseVault(JSON.parse(JSON.stringify(vault)), b.adapters);
    expect(Object.keys(read?.decks ?? {})).toEqual(['ok']);
    // The cap and marks as the review log reads them: the default cap, known grades only.
    expect(read?.reviews.ok).toEqual({ newPerDay: b.store.readReviews('none').newPerDay, setAt: 3, log: [['a', 1, 'good']] });
    expect(read && sameState(read, merge(read, read))).toBe(true);
  });
});
