// Property tests of the merge (random states, and random interleavings of edits, deletions,
// reviews and syncs on two browsers sharing a vault), in the manner of actual's sync tests.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CONFLICT_SUFFIX, conflictId, emptyState, isLive, merge, sameState, unionLogs, type DeckEntry, type Mark, type VaultState } from './merge';

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
          deck: { id: 'deck', name, cards: cards.map((front) => ({ id: front, front, back: front })), createdAt: iso(savedAt), type: 'deck', version: 1 },
        },
  );

const markArb: fc.Arbitrary<Mark> = fc.tuple(fc.constantFrom('c1', 'c2'), fc.integer({ min: 0, max: 5 }), fc.constantFrom('good', 'again'));

const stateArb: fc.Arbitrary<VaultState> = fc.record({
  decks: fc.dictionary(fc.constantFrom(...ids), entryArb),
  reviews: fc.dictionary(
    fc.constantFrom(...ids),
    fc.record({
      newPerDay: fc.integer({ min: 0, max: 30 }),
      setAt: fc.integer({ min: 0, max: 4 }),
      log: fc.array(markArb, { maxLength: 5 }).map((log) => unionLogs(log, [])),
    }),
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
    const deck = (name: string, front: string, at: number) => ({ id: 'd', name, cards: [{ id: front, front, back: '?' }], createdAt: iso(at) });
    const a: VaultState = { ...emptyState(), decks: { d: { savedAt: 20, baseAt: 10, deck: deck('Verbs', 'être', 20) } } };
    const b: VaultState = { ...emptyState(), decks: { d: { savedAt: 15, baseAt: 10, deck: deck('Verbs', 'avoir', 15) } } };
    const m = merge(a, b);
    const winner = m.decks.d;
    const copy = m.decks[conflictId('d', { savedAt: 15, baseAt: 10, deck: { id: 'd', name: '', createdAt: '' } })];
    expect(winner && isLive(winner) && winner.deck.cards).toEqual([{ id: 'être', front: 'être', back: '?' }]);
    expect(copy && isLive(copy) && copy.deck.name).toBe(`Verbs${CONFLICT_SUFFIX}`);
    expect(copy && isLive(copy) && copy.deck.id).toBe(conflictId('d', { savedAt: 15, baseAt: 10, deck: { id: 'd', name: '', createdAt: '' } }));
    // A later edit that had seen the other version replaces it without a copy.
    const c: VaultState = { ...emptyState(), decks: { d: { savedAt: 30, baseAt: 20, deck: deck('Verbs', 'aller', 30) } } };
    expect(Object.keys(merge(a, c).decks)).toEqual(['d']);
  });

  it('a deletion wins over what it saw and stays deleted; reviews go with the deck', () => {
    const live: DeckEntry = { savedAt: 10, baseAt: 0, deck: { id: 'd', name: 'Verbs', cards: [], createdAt: iso(10) } };
    const gone: DeckEntry = { savedAt: 12, baseAt: 10, deleted: true };
    const a: VaultState = { ...emptyState(), decks: { d: live }, reviews: { d: { newPerDay: 20, setAt: 0, log: [['c', 1, 'good']] } } };
    const b: VaultState = { ...emptyState(), decks: { d: gone } };
    const m = merge(a, b);
    expect(m.decks).toEqual({ d: gone });
    expect(m.reviews).toEqual({});
    expect(merge(m, a)).toEqual(m);
  });

  it('unites review logs by mark, in time order', () => {
    const a: Mark[] = [
      ['x', 1, 'good'],
      ['y', 3, 'again'],
    ];
    const b: Mark[] = [
      ['x', 1, 'good'],
      ['x', 2, 'again'],
    ];
    expect(unionLogs(a, b)).toEqual([
      ['x', 1, 'good'],
      ['x', 2, 'again'],
      ['y', 3, 'again'],
    ]);
  });
});
