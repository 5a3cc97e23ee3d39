// Property tests of the merge on random documents (commutative, associative, idempotent), and
// examples of its rules: concurrent edits of different cards make one deck; concurrent edits of
// one field keep the losing text in the card's conflict note; an edit that saw the other replaces
// it silently; a deletion loses to an edit it did not see.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { deckFromV1, editDeck, renderDeck } from './deckDoc';
import { makeStamp, NO_STAMP, type Stamp } from './hlc';
import {
  deckLive,
  emptyState,
  merge,
  normaliseField,
  sameState,
  unionLogs,
  withSeeds,
  type CardDoc,
  type DeckDoc,
  type FieldDoc,
  type Mark,
  type VaultState,
} from './merge';

const stampArb: fc.Arbitrary<Stamp> = fc.tuple(fc.integer({ min: 1, max: 6 }), fc.constantFrom('a', 'b', 'c')).map(([w, d]) => makeStamp(w, 0, d));
const maybeStamp = fc.oneof(fc.constant(NO_STAMP), stampArb);

const fieldArb = (values: fc.Arbitrary<unknown>): fc.Arbitrary<FieldDoc> =>
  fc
    .tuple(fc.array(fc.record({ v: values, at: stampArb, base: maybeStamp }), { minLength: 1, maxLength: 3 }), fc.array(stampArb, { maxLength: 2 }))
    .map(([versions, gone]) =>
      normaliseField(
        versions.filter((version) => version.base < version.at),
        gone,
      ),
    )
    .filter((field) => field.versions.length > 0);

const deletionArb = fc.option(fc.record({ at: stampArb, seen: maybeStamp }), { nil: undefined });

const cardArb: fc.Arbitrary<CardDoc> = fc
  .record({
    front: fieldArb(fc.constantFrom('un', 'deux', 'trois')),
    back: fieldArb(fc.constantFrom('one', 'two', '')),
    suspended: fieldArb(fc.boolean()),
    pos: fc.record({ v: fc.integer({ min: 0, max: 3 }), at: stampArb }),
    deleted: deletionArb,
  })
  .map(({ front, back, suspended, pos, deleted }) => ({ fields: { front, back, suspended }, pos, ...(deleted ? { deleted } : {}) }));

const deckArb: fc.Arbitrary<DeckDoc> = fc
  .record({
    name: fc.record({ v: fc.constantFrom('Verbs', 'Nouns'), at: stampArb }),
    cards: fc.dictionary(fc.constantFrom('c1', 'c2', 'c3'), cardArb, { maxKeys: 3 }),
    deleted: deletionArb,
  })
  .map(({ name, cards, deleted }) => ({ meta: { name }, cards, ...(deleted ? { deleted } : {}) }));

const markArb: fc.Arbitrary<Mark> = fc.tuple(fc.constantFrom('c1', 'c2'), fc.integer({ min: 0, max: 5 }), fc.constantFrom('good', 'again'));

const seedArb = fc.record({ through: fc.integer({ min: 0, max: 5 }), state: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 2 }) });

const stateArb: fc.Arbitrary<VaultState> = fc.record({
  decks: fc.dictionary(fc.constantFrom('a', 'b'), deckArb, { maxKeys: 2 }),
  reviews: fc.dictionary(
    fc.constantFrom('a', 'b'),
    fc
      .record({
        newPerDay: fc.integer({ min: 0, max: 30 }),
        setAt: maybeStamp,
        log: fc.array(markArb, { maxLength: 5 }).map((log) => unionLogs(log, [])),
        seeds: fc.dictionary(fc.constantFrom('c1', 'c2'), seedArb, { maxKeys: 2 }),
      })
      .map(({ seeds, ...reviews }) => withSeeds(reviews, seeds)),
    { maxKeys: 2 },
  ),
  calendars: fc.record({ savedAt: maybeStamp, list: fc.array(fc.constantFrom('work', 'home'), { maxLength: 2 }) }),
});

describe('merge', () => {
  it('is commutative', () => {
    fc.assert(
      fc.property(stateArb, stateArb, (a, b) => sameState(merge(a, b), merge(b, a))),
      { numRuns: 300 },
    );
  });

  it('is associative', () => {
    fc.assert(
      fc.property(stateArb, stateArb, stateArb, (a, b, c) => sameState(merge(merge(a, b), c), merge(a, merge(b, c)))),
      { numRuns: 300 },
    );
  });

  it('is idempotent and absorbs what it merged', () => {
    fc.assert(
      fc.property(stateArb, stateArb, (a, b) => {
        const m = merge(a, b);
        return sameState(merge(a, a), a) && sameState(merge(m, b), m) && sameState(merge(m, a), m);
      }),
      { numRuns: 300 },
    );
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

  it('keeps each item’s seed through the later mark, and no seeds field when there are none', () => {
    const a = withSeeds({ newPerDay: 20, setAt: NO_STAMP, log: [] }, { x: { through: 5, state: [1] }, y: { through: 1, state: [1] } });
    const b = withSeeds(
      { newPerDay: 20, setAt: NO_STAMP, log: [] },
      { x: { through: 2, state: [2] }, y: { through: 3, state: [2] }, z: { through: 0, state: [2] } },
    );
    const merged = merge({ ...emptyState(), reviews: { d: a } }, { ...emptyState(), reviews: { d: b } }).reviews.d;
    expect(merged?.seeds).toEqual({ x: { through: 5, state: [1] }, y: { through: 3, state: [2] }, z: { through: 0, state: [2] } });
    const none = merge({ ...emptyState(), reviews: { d: { newPerDay: 20, setAt: NO_STAMP, log: [] } } }, emptyState()).reviews.d;
    expect(none && 'seeds' in none).toBe(false);
  });
});

const t = (wall: number, device: string) => makeStamp(wall, 0, device);
const card = (id: string, front: string, back: string) => ({ id, front, back });
const deck = (cards: ReturnType<typeof card>[]) => ({ id: 'd', name: 'Verbs', createdAt: '', cards });
const stamper = (wall: number, device: string) => () => t(wall, device);
const one = (doc: DeckDoc): VaultState => ({ ...emptyState(), decks: { d: doc } });
const shown = (state: VaultState) => {
  const doc = state.decks.d;
  return doc ? renderDeck('d', doc) : null;
};

describe('merging one deck edited on two devices', () => {
  const synced = deckFromV1({ ...deck([card('c1', 'être', 'to be')]), createdAt: new Date(10).toISOString() }, 10, 0);
  const before = renderDeck('d', synced);

  it('cards added on each device end in one deck holding both', () => {
    const a = editDeck(deck([card('c1', 'être', 'to be'), card('c2', 'avoir', 'to have')]), synced, before, stamper(20, 'a'), 'a');
    const b = editDeck(deck([card('c1', 'être', 'to be'), card('c3', 'aller', 'to go')]), synced, before, stamper(15, 'b'), 'b');
    const m = merge(one(a), one(b));
    expect(Object.keys(m.decks)).toEqual(['d']);
    expect(shown(m)?.cards).toEqual([card('c1', 'être', 'to be'), card('c2', 'avoir', 'to have'), card('c3', 'aller', 'to go')]);
  });

  it('the same field edited on both: the later stamp wins, the other text is the card’s note', () => {
    const a = editDeck(deck([card('c1', 'être', 'to exist')]), synced, before, stamper(20, 'a'), 'a');
    const b = editDeck(deck([card('c1', 'être', 'be')]), synced, before, stamper(15, 'b'), 'b');
    const m = merge(one(a), one(b));
    expect(shown(m)?.cards).toEqual([{ ...card('c1', 'être', 'to exist'), conflict: 'back: be' }]);
    // Dismissing the note (a save without it) drops the losing text everywhere.
    const afterMerge = shown(m);
    if (!afterMerge || !m.decks.d) throw new Error('no deck');
    const dismissed = editDeck(deck([card('c1', 'être', 'to exist')]), m.decks.d, afterMerge, stamper(30, 'b'), 'b');
    expect(shown(merge(m, one(dismissed)))?.cards).toEqual([card('c1', 'être', 'to exist')]);
  });

  it('an edit that saw the other replaces it without a note, whatever the clocks say', () => {
    // Device a's clock is a day ahead; b edits after seeing a's edit, with a stamp after it.
    const a = editDeck(deck([card('c1', 'être', 'from a')]), synced, before, stamper(86_400_010, 'a'), 'a');
    const seen = renderDeck('d', a);
    const b = editDeck(deck([card('c1', 'être', 'from b')]), a, seen, stamper(86_400_011, 'b'), 'b');
    expect(shown(merge(one(a), one(b)))?.cards).toEqual([card('c1', 'être', 'from b')]);
  });

  it('a deletion that did not see an edit loses to it; one that saw everything stays', () => {
    const edited = editDeck(deck([card('c1', 'être', 'to exist')]), synced, before, stamper(20, 'a'), 'a');
    const deleted: DeckDoc = { ...synced, deleted: { at: t(30, 'b'), seen: t(10, 'v1') } };
    const m = merge(one(edited), one(deleted));
    expect(m.decks.d && deckLive(m.decks.d)).toBe(true);
    expect(shown(m)?.cards).toEqual([card('c1', 'être', 'to exist')]);
    const sawAll: DeckDoc = { ...edited, deleted: { at: t(40, 'b'), seen: t(20, 'a') } };
    expect(shown(merge(one(edited), one(sawAll)))).toBeNull();
  });

  it('a card deleted on one device and edited on the other stays, with the edit', () => {
    const a = editDeck(deck([]), synced, before, stamper(20, 'a'), 'a');
    const b = editDeck(deck([card('c1', 'être', 'still here')]), synced, before, stamper(15, 'b'), 'b');
    expect(shown(merge(one(a), one(b)))?.cards).toEqual([card('c1', 'être', 'still here')]);
    // Deleted without a concurrent edit, it is gone.
    expect(shown(merge(one(a), one(synced)))?.cards).toEqual([]);
  });

  it('a card moved here keeps its new place on the other device', () => {
    const start = deckFromV1({ ...deck([card('x', '1', '1'), card('y', '2', '2'), card('z', '3', '3')]), createdAt: '' }, 10, 0);
    const moved = editDeck(deck([card('z', '3', '3'), card('x', '1', '1'), card('y', '2', '2')]), start, renderDeck('d', start), stamper(20, 'a'), 'a');
    expect(JSON.stringify(shown(merge(one(start), one(moved)))?.cards)).toMatch(/"id":"z".*"id":"x".*"id":"y"/);
  });
});
