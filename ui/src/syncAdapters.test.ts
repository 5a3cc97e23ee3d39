// Sync with the features' real adapters, wired as RouterApp wires them: three browsers (one with
// its clock a day ahead) that add, edit, delete and review cards and decks through the flashcards'
// own store and sync through one vault in random orders converge, keep one deck per deck (never a
// conflict copy), lose no text that no edit saw (it is the value or in the card's conflict note),
// and a vault applied to a browser changes nothing the next time. (At the top of
// src, like RouterApp: the one place that sees sync and the features together.)
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { defaultMapping } from './calendars/calendar';
import { createCalendarStore } from './calendars/storage';
import { defaultMeta, emptyCard, type Deck } from './flashcards/deck';
import { deckKey } from './flashcards/storage';
import { recordMark, withNewPerDay } from './flashcards/srs/reviewLog';
import { makeStamp } from './sync/hlc';
import { applyState, emptyBase, localState, parseVault, readLocal, toVault } from './sync/local';
import { deckLive, emptyState, merge, sameState, type VaultState } from './sync/merge';
import { replica, syncThrough as syncReplica, type Replica } from './syncReplicas';

const iso = (ms: number) => new Date(ms).toISOString();
const DAY = 24 * 60 * 60 * 1000;

let now = 1_700_000_000_000;

type Browser = Replica;

const browser = (name: string, skew = 0): Browser => replica(name, () => now + skew);

const deckOf = (id: string, name: string, fronts: string[], at: number): Deck => ({
  ...defaultMeta(),
  id,
  name,
  cards: fronts.map((front) => ({ ...emptyCard(`${id}-${front}`), front, back: 'x' })),
  createdAt: iso(at),
  type: 'deck',
  version: 1,
});

type Op =
  | { kind: 'create'; browser: number }
  | { kind: 'add'; browser: number }
  | { kind: 'edit'; browser: number; card: number }
  | { kind: 'rename'; browser: number }
  | { kind: 'dismiss'; browser: number }
  | { kind: 'removeCard'; browser: number; card: number }
  | { kind: 'delete'; browser: number }
  | { kind: 'review'; browser: number }
  | { kind: 'cap'; browser: number; cap: number }
  | { kind: 'sync'; browser: number };

const opArb = (withDeletes: boolean): fc.Arbitrary<Op> => {
  const who = fc.integer({ min: 0, max: 2 });
  const card = fc.integer({ min: 0, max: 3 });
  const kinds: fc.Arbitrary<Op>[] = [
    fc.record({ kind: fc.constant('create' as const), browser: who }),
    fc.record({ kind: fc.constant('add' as const), browser: who }),
    fc.record({ kind: fc.constant('edit' as const), browser: who, card }),
    fc.record({ kind: fc.constant('edit' as const), browser: who, card }),
    fc.record({ kind: fc.constant('rename' as const), browser: who }),
    fc.record({ kind: fc.constant('dismiss' as const), browser: who }),
    fc.record({ kind: fc.constant('review' as const), browser: who }),
    fc.record({ kind: fc.constant('cap' as const), browser: who, cap: fc.integer({ min: 0, max: 30 }) }),
    fc.record({ kind: fc.constant('sync' as const), browser: who }),
    fc.record({ kind: fc.constant('sync' as const), browser: who }),
  ];
  if (withDeletes) {
    kinds.push(fc.record({ kind: fc.constant('removeCard' as const), browser: who, card }));
    kinds.push(fc.record({ kind: fc.constant('delete' as const), browser: who }));
  }
  return fc.oneof(...kinds);
};

/** One sync, a millisecond after the last step. */
function syncThrough(b: Browser, vault: VaultState): VaultState {
  now += 1;
  return syncReplica(b, vault);
}

function simulate(ops: Op[]) {
  now = 1_700_000_000_000;
  // The third browser's clock is a day ahead.
  const browsers = [browser('one'), browser('two'), browser('three', DAY)];
  let vault = emptyState();
  let text = 0;
  const written: string[] = [];
  const replaced = new Set<string>();
  const [first] = browsers;
  if (!first) throw new Error('no browser');
  first.store.saveDeck(deckOf('d', 'Verbs', ['être', 'avoir'], now));
  for (const b of browsers) vault = syncThrough(b, vault);
  for (const op of ops) {
    now += 1_000;
    const b = browsers[op.browser];
    if (!b) continue;
    const deckId = b.store.readIndex()[0];
    if (op.kind === 'sync') vault = syncThrough(b, vault);
    else if (op.kind === 'create') b.store.saveDeck(deckOf(`${op.browser}-${now}`, 'New', ['un'], now));
    else if (deckId === undefined) continue;
    else if (op.kind === 'delete') b.store.deleteDeck(deckId);
    else if (op.kind === 'review') b.store.writeReviews(deckId, recordMark(b.store.readReviews(deckId), `${deckId}-c`, 'good', now));
    else if (op.kind === 'cap') b.store.writeReviews(deckId, withNewPerDay(b.store.readReviews(deckId), op.cap));
    else {
      const deck = b.store.readDeck(deckId);
      if (!deck) continue;
      const save = (changes: Partial<Deck>) => b.store.saveDeck({ ...deck, ...changes, createdAt: iso(now) });
      const target = deck.cards[op.kind === 'edit' || op.kind === 'removeCard' ? op.card % Math.max(1, deck.cards.length) : 0];
      if (op.kind === 'add') {
        const front = `front ${(text += 1)}`;
        written.push(front);
        save({ cards: [...deck.cards, { ...emptyCard(`${b.clock.device}-${text}`), front, back: 'x' }] });
      } else if (op.kind === 'rename') save({ name: `Name ${(text += 1)}` });
      else if (!target) continue;
      else if (op.kind === 'edit') {
        const back = `back ${(text += 1)}`;
        written.push(back);
        replaced.add(target.back);
        save({ cards: deck.cards.map((card) => (card.id === target.id ? { ...card, back } : card)) });
      } else if (op.kind === 'removeCard') save({ cards: deck.cards.filter((card) => card.id !== target.id) });
      else {
        for (const line of deck.cards.flatMap((card) => card.conflict?.split('\n') ?? [])) replaced.add(line.replace(/^[a-z]+: /, ''));
        save({ cards: deck.cards.map((card) => ({ ...card, conflict: undefined })) });
      }
    }
  }
  // Everyone syncs until nothing changes: two rounds suffice.
  for (let round = 0; round < 2; round += 1) for (const b of browsers) vault = syncThrough(b, vault);
  return { browsers, vault, written, replaced };
}

/** The decks and review logs as each browser's own store reads them. */
const visible = (b: Browser) => Object.fromEntries(b.store.listDecks().map((deck) => [deck.id, { deck, reviews: b.store.readReviews(deck.id) }]));

describe('three browsers syncing through a vault with the real adapters', () => {
  it('converge to the same decks, lists and review logs in any interleaving, one deck per deck', () => {
    fc.assert(
      fc.property(fc.array(opArb(true), { maxLength: 40 }), (ops) => {
        const { browsers, vault } = simulate(ops);
        const [one, ...others] = browsers;
        if (!one) return false;
        for (const other of others) {
          expect(visible(other)).toEqual(visible(one));
          expect([...other.store.readIndex()].sort()).toEqual([...one.store.readIndex()].sort());
        }
        const index = one.store.readIndex();
        expect(new Set(index).size).toBe(index.length);
        expect(index.sort()).toEqual(
          Object.keys(vault.decks)
            .filter((id) => vault.decks[id] && deckLive(vault.decks[id]))
            .sort(),
        );
        for (const deck of one.store.listDecks()) expect(deck.name).not.toMatch(/conflict copy/);
        return true;
      }),
      { numRuns: 120 },
    );
  }, 30_000);

  it('lose no text that no edit saw: it is a card’s value or in its conflict note', () => {
    fc.assert(
      fc.property(fc.array(opArb(false), { maxLength: 40 }), (ops) => {
        const { browsers, written, replaced } = simulate(ops);
        for (const b of browsers) {
          const cards = b.store.listDecks().flatMap((deck) => deck.cards);
          const kept = new Set(
            cards.flatMap((card) => [card.front, card.back, ...(card.conflict?.split('\n').map((line) => line.replace(/^[a-z]+: /, '')) ?? [])]),
          );
          for (const text of written) if (!replaced.has(text)) expect(kept).toContain(text);
        }
        return true;
      }),
      { numRuns: 120 },
    );
  }, 30_000);

  it('cards added offline on two browsers end in one deck holding both', () => {
    const { browsers } = simulate([
      { kind: 'add', browser: 0 },
      { kind: 'add', browser: 2 },
      { kind: 'sync', browser: 0 },
      { kind: 'sync', browser: 2 },
    ]);
    for (const b of browsers) {
      const decks = b.store.listDecks();
      expect(decks.map((deck) => deck.name)).toEqual(['Verbs']);
      expect(decks[0]?.cards.map((card) => card.front)).toEqual(['être', 'avoir', 'front 1', 'front 2']);
    }
  });

  it('an edit made after seeing the edit of a browser a day ahead wins on every browser', () => {
    const { browsers } = simulate([
      { kind: 'edit', browser: 2, card: 0 },
      { kind: 'sync', browser: 2 },
      { kind: 'sync', browser: 0 },
      { kind: 'edit', browser: 0, card: 0 },
    ]);
    for (const b of browsers) {
      const [card] = b.store.listDecks()[0]?.cards ?? [];
      expect(card?.back).toBe('back 2');
      expect(card?.conflict).toBeUndefined();
    }
  });

  it('a review made offline on each browser is in every log after syncing', () => {
    const { browsers } = simulate([
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
    const state = syncThrough(b, emptyState());
    const before = new Map(b.storage.data);
    const again = localState(readLocal(b.adapters), b.base, b.clock, b.adapters.decks);
    expect(again).toEqual(state);
    expect(applyState(b.adapters, merge(state, again), readLocal(b.adapters))).toBe(false);
    expect(b.storage.data).toEqual(before);
  });

  it('a deck this browser cannot read is not sent as deleted, and the vault’s copy replaces it', () => {
    const b = browser('a');
    b.store.saveDeck(deckOf('x', 'Verbs', ['un'], 1000));
    const synced = syncThrough(b, emptyState());
    // Its record is damaged here.
    b.storage.setItem(deckKey('x'), '{"type":"deck","version":');
    const local = localState(readLocal(b.adapters), b.base, b.clock, b.adapters.decks);
    expect(local.decks.x).toEqual(synced.decks.x);
    applyState(b.adapters, merge(synced, local), readLocal(b.adapters));
    expect(b.store.readDeck('x')?.name).toBe('Verbs');
    expect(b.store.readIndex()).toEqual(['x']);
  });

  it('a deck a newer app wrote is carried in the vault but not written here', () => {
    const b = browser('a');
    const at = makeStamp(5, 0, 'z');
    const newer: VaultState = { ...emptyState(), decks: { later: { meta: { name: { v: 'From a newer app', at }, version: { v: 9, at } }, cards: {} } } };
    const read = parseVault(JSON.parse(JSON.stringify(toVault(newer))), b.adapters);
    expect(read && sameState(read, newer)).toBe(true);
    expect(read && applyState(b.adapters, read, readLocal(b.adapters))).toBe(false);
    expect(b.store.readIndex()).toEqual([]);
  });

  it('a v1 vault and a v1 base convert: unchanged decks are the same documents on every device', () => {
    const b = browser('a');
    const deck = deckOf('x', 'Verbs', ['un'], 1000);
    b.store.saveDeck(deck);
    b.store.writeReviews('x', recordMark(b.store.readReviews('x'), 'un', 'good', 1500));
    const v1 = {
      type: 'hearth-vault',
      version: 1,
      decks: { x: { savedAt: 1000, baseAt: 0, deck: b.store.readDeck('x') }, gone: { savedAt: 900, baseAt: 800, deleted: true } },
      reviews: { x: { newPerDay: 20, setAt: 0, log: [['un', 1500, 'good']] } },
      calendars: { savedAt: 0, list: [] },
    };
    b.base = { ...emptyBase(), legacy: { x: { savedAt: 1000, baseAt: 0 } }, newPerDay: { x: { value: 20, setAt: '' } } };
    const remote = parseVault(JSON.parse(JSON.stringify(v1)), b.adapters);
    const local = localState(readLocal(b.adapters), b.base, b.clock, b.adapters.decks);
    expect(remote?.decks.x).toEqual(local.decks.x);
    const merged = remote && merge(remote, local);
    // The same deck, the same time: nothing to write here.
    expect(merged && applyState(b.adapters, merged, readLocal(b.adapters))).toBe(false);
    expect(b.store.readDeck('x')?.cards).toEqual(deck.cards);
    expect(merged?.decks.gone && deckLive(merged.decks.gone)).toBe(false);
    // Edited here since the v1 sync: the edit wins over the vault's older version, in one deck.
    b.store.saveDeck({ ...deck, cards: deck.cards.map((card) => ({ ...card, back: 'one' })), createdAt: iso(2000) });
    const edited = localState(readLocal(b.adapters), b.base, b.clock, b.adapters.decks);
    const after = remote && merge(remote, edited);
    expect(after && Object.keys(after.decks).sort()).toEqual(['gone', 'x']);
    expect(after?.decks.x && JSON.stringify(after.decks.x)).toContain('"one"');
  });
});
