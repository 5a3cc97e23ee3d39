// A deck's own FSRS parameters and desired retention travel with sync as one setting with the
// daily new-card cap (the later edit wins, whole): after syncing, both devices derive the same
// schedule from them; a record without them is stored and synced exactly as before.
import { describe, expect, it } from 'vitest';
import type { Deck } from './flashcards/deck';
import { deckKeys, dueCount, reviewDueCount } from './flashcards/srs/due';
import { emptyReviews, recordMark, toStored, withNewPerDay, withSettings, type ReviewRecord } from './flashcards/srs/reviewLog';
import { DEFAULT_PARAMS } from './flashcards/srs/schedule';
import { reviewsKey } from './flashcards/storage';
import { emptyState, merge, type DeckReviews, type VaultState } from './sync/merge';
import { makeStamp } from './sync/hlc';
import { baseOf } from './sync/local';
import { createSyncStore } from './sync/state';
import { baseContent } from './sync/vaultParts';
import { MemoryStorage } from './lib/memoryStorage';
import { replica, syncThrough, type Replica } from './syncReplicas';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const T0 = Date.UTC(2026, 2, 2, 9);
const FITTED = DEFAULT_PARAMS.map((part, i) => (i < 4 ? Math.round(part * 0.4 * 1e6) / 1e6 : part));

const deck: Deck = {
  id: 'deck-1',
  name: 'Verbs',
  sourceLang: 'en',
  targetLang: 'de',
  bidirectional: false,
  createdAt: new Date(T0).toISOString(),
  cards: Array.from({ length: 12 }, (_, i) => ({ id: `c${i}`, front: `front ${i}`, back: `back ${i}`, tags: [], suspended: false, media: [], guid: '' })),
} as unknown as Deck;

function setUp() {
  let now = T0;
  const one = replica('one', () => now);
  const two = replica('two', () => now);
  let reviews: ReviewRecord = emptyReviews();
  deck.cards.forEach((card, i) => {
    reviews = recordMark(reviews, card.id, i % 3 === 0 ? 'again' : 'good', T0 + i * MINUTE);
    reviews = recordMark(reviews, card.id, 'good', T0 + 2 * DAY + i * MINUTE);
  });
  expect(one.store.importDecks([deck], { [deck.id]: reviews })).toEqual({ ok: true });
  let vault: VaultState = emptyState();
  vault = syncThrough(one, vault);
  vault = syncThrough(two, vault);
  return { one, two, vault, tick: () => (now += MINUTE) };
}

const save = (b: Replica, change: (reviews: ReviewRecord) => ReviewRecord) => b.store.writeReviews(deck.id, change(b.store.readReviews(deck.id)));

describe('schedule settings in sync', () => {
  it('carries parameters and retention to the other device, which derives the same schedule', () => {
    const fresh = setUp();
    let vault = fresh.vault;
    fresh.tick();
    save(fresh.one, (reviews) => withSettings(reviews, FITTED, 0.8));
    vault = syncThrough(fresh.one, vault);
    syncThrough(fresh.two, vault);
    const a = fresh.one.store.readReviews(deck.id);
    const b = fresh.two.store.readReviews(deck.id);
    expect(b.params).toEqual(FITTED);
    expect(b.retention).toBe(0.8);
    expect(b.items).toEqual(a.items);
    const keys = deckKeys(deck);
    for (const later of [3 * DAY, 10 * DAY, 30 * DAY]) {
      expect(dueCount(keys, b, T0 + later)).toBe(dueCount(keys, a, T0 + later));
      expect(reviewDueCount(keys, b, T0 + later)).toBe(reviewDueCount(keys, a, T0 + later));
    }
    // The settings changed the schedule: the defaults derive other states.
    expect(withSettings(b, undefined, undefined).items).not.toEqual(b.items);
  });

  it('takes the later edit of the setting whole (cap, parameters, retention)', () => {
    const s = setUp();
    let vault = s.vault;
    s.tick();
    save(s.one, (reviews) => withSettings(reviews, FITTED, 0.85));
    vault = syncThrough(s.one, vault);
    // The other device, not yet synced, sets retention later: its whole setting wins.
    save(s.two, (reviews) => withSettings(reviews, undefined, 0.95));
    vault = syncThrough(s.two, vault);
    syncThrough(s.one, vault);
    for (const b of [s.one, s.two]) {
      const reviews = b.store.readReviews(deck.id);
      expect(reviews.params).toBeUndefined();
      expect(reviews.retention).toBe(0.95);
    }
    expect(s.one.store.readReviews(deck.id).items).toEqual(s.two.store.readReviews(deck.id).items);
  });

  it('leaves a record without them as it was, stored and in the vault', () => {
    const { one, vault } = setUp();
    const stored = JSON.parse(one.storage.getItem(reviewsKey(deck.id)) ?? 'null') as Record<string, unknown>;
    expect(Object.keys(stored).sort()).toEqual(['items', 'log', 'newPerDay', 'seeds', 'type', 'version']);
    const carried = vault.reviews[deck.id] as DeckReviews;
    expect('params' in carried || 'retention' in carried).toBe(false);
    const plain = withNewPerDay(emptyReviews(), 20);
    expect(JSON.stringify(toStored(plain))).toBe('{"type":"reviews","version":1,"newPerDay":20,"seeds":{},"items":{},"log":[]}');
  });

  it('merges the same way in either order', () => {
    const a: DeckReviews = { newPerDay: 20, setAt: makeStamp(5, 0, 'a'), log: [], params: FITTED, retention: 0.8 };
    const b: DeckReviews = { newPerDay: 20, setAt: makeStamp(5, 0, 'a'), log: [], retention: 0.9 };
    const ab = merge({ ...emptyState(), reviews: { d: a } }, { ...emptyState(), reviews: { d: b } });
    const ba = merge({ ...emptyState(), reviews: { d: b } }, { ...emptyState(), reviews: { d: a } });
    expect(ab).toEqual(ba);
    const later: DeckReviews = { newPerDay: 20, setAt: makeStamp(6, 0, 'b'), log: [] };
    const merged = merge({ ...emptyState(), reviews: { d: a } }, { ...emptyState(), reviews: { d: later } }).reviews.d;
    expect(merged && 'params' in merged).toBe(false);
  });

  it('keeps the setting in what the last sync left (stored base, and the vault parts it stands for)', () => {
    const reviews: DeckReviews = { newPerDay: 15, setAt: makeStamp(5, 0, 'a'), log: [['c', 7, 'good']], params: FITTED, retention: 0.85 };
    const base = baseOf({ ...emptyState(), reviews: { d: reviews } });
    expect(base.newPerDay.d).toEqual({ value: 15, setAt: reviews.setAt, params: FITTED, retention: 0.85 });
    const store = createSyncStore(new MemoryStorage());
    store.setBase(base, 'hash');
    expect(store.base()).toEqual(base);
    expect(baseContent(store.base()).reviews.d).toEqual(reviews);
  });
});
