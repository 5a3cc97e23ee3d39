// The adapter sync reads and writes the decks through, held to this feature's own storage: what
// the deck store writes, the adapter reads the same; what the adapter writes, the deck store and
// the review log read back; defaults and versions come from the feature's constants.
import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '../lib/memoryStorage';
import { defaultMeta, emptyCard, normaliseForSave, storedCards, type Deck } from './deck';
import { createDeckStore, deckDraftKey, deckKey, INDEX_KEY, reviewsKey, sessionKey } from './storage';
import { DEFAULT_NEW_PER_DAY, deriveItems, emptyReviews, recordMark, toStored } from './srs/reviewLog';
import { grade } from './srs/schedule';
import { createDecksSyncAdapter } from './syncAdapter';

const T = new Date('2026-03-01T10:00:00.000Z');
let counter = 0;
const makeId = () => `id-${(counter += 1)}`;

function deck(id: string, name: string, fronts: string[] = ['cat'], at = T): Deck {
  const cards = fronts.map((front, i) => ({ ...emptyCard(`${id}-c${i}`), front, back: `${front}!` }));
  return normaliseForSave(id, { ...defaultMeta(), name, targetLang: 'nl' }, cards, at);
}

function setup() {
  const storage = new MemoryStorage();
  return { storage, store: createDeckStore(storage, makeId), adapter: createDecksSyncAdapter(storage, makeId) };
}

describe('the decks adapter and the deck store agree', () => {
  it('reads a deck the store saved as the store reads it, in the list order', () => {
    const { store, adapter } = setup();
    store.saveDeck(deck('a', 'Animals'));
    store.saveDeck(deck('b', 'Birds', ['owl', 'jay']));
    const read = adapter.read();
    expect(read.order).toEqual(['b', 'a']);
    const a = store.readDeck('a');
    const b = store.readDeck('b');
    expect(a && read.decks.a).toEqual(a && storedCards(a));
    expect(b && read.decks.b).toEqual(b && storedCards(b));
    expect(adapter.readDeck('b')).toEqual(read.decks.b);
  });

  it('carries tags and suspended cards, and a deck without them as it was before they existed', () => {
    const { store, adapter, storage } = setup();
    const plain = deck('p', 'Plain');
    store.saveDeck(plain);
    expect(adapter.readDeck('p')?.cards).toEqual([{ id: 'p-c0', front: 'cat', back: 'cat!', pronunciation: '', gender: '', example: '' }]);
    const tagged = { ...deck('t', 'Tagged'), cards: [{ ...emptyCard('t-c0'), front: 'cat', back: 'kat', tags: ['animals'], suspended: true }] };
    store.saveDeck(tagged);
    const carried = adapter.readDeck('t');
    expect(carried?.cards).toEqual([{ id: 't-c0', front: 'cat', back: 'kat', pronunciation: '', gender: '', example: '', tags: ['animals'], suspended: true }]);
    if (!carried) throw new Error('the tagged deck was not read');
    storage.removeItem(deckKey('t'));
    adapter.apply({ put: { t: carried }, remove: [], order: null, reviews: {} });
    expect(store.readDeck('t')?.cards[0]).toMatchObject({ tags: ['animals'], suspended: true });
  });

  it('writes decks and the list the store then reads, and removes what the feature keeps with a deck', () => {
    const { storage, store, adapter } = setup();
    store.saveDeck(deck('gone', 'Old'));
    store.writeReviews('gone', recordMark(emptyReviews(), 'gone-c0', 'good', T.getTime()));
    storage.setItem(sessionKey('gone'), '{}');
    storage.setItem(deckDraftKey('gone'), '{}');
    const arrived = adapter.parseDeck(JSON.parse(JSON.stringify(deck('new', 'New', ['sun']))), 'new');
    expect(arrived).not.toBeNull();
    if (!arrived) return;
    adapter.apply({ put: { new: arrived }, remove: ['gone'], order: ['new'], reviews: {} });
    expect(store.readIndex()).toEqual(['new']);
    expect(store.readDeck('new')).toEqual(deck('new', 'New', ['sun']));
    for (const key of [deckKey('gone'), reviewsKey('gone'), sessionKey('gone'), deckDraftKey('gone')]) expect(storage.getItem(key)).toBeNull();
  });

  it('round-trips every deck the store accepts, unchanged', () => {
    const { store, adapter } = setup();
    const original = { ...deck('r', 'Round', ['a', 'b', 'c']), bidirectional: true, description: 'trip', sourceLang: 'hu' as const };
    store.saveDeck(original);
    const read = adapter.read();
    adapter.apply({ put: read.decks, remove: [], order: read.order, reviews: {} });
    expect(store.readDeck('r')).toEqual(original);
    expect(adapter.read()).toEqual(read);
  });

  it('round-trips decks in languages beyond the spec’s four', () => {
    const { store, adapter } = setup();
    const original = { ...deck('l', 'Kanji', ['a']), sourceLang: 'de', targetLang: 'ja' };
    const tagged = { ...deck('t', 'Tagged', ['b']), sourceLang: 'pt-BR', targetLang: 'zh-Hant' };
    store.saveDeck(original);
    store.saveDeck(tagged);
    const read = adapter.read();
    const travelled = JSON.parse(JSON.stringify(read.decks)) as Record<string, unknown>;
    const put = Object.fromEntries(Object.entries(travelled).map(([id, value]) => [id, adapter.parseDeck(value, id)]));
    expect(put.l).toMatchObject({ sourceLang: 'de', targetLang: 'ja' });
    expect(put.t).toMatchObject({ sourceLang: 'pt-BR', targetLang: 'zh-Hant' });
    adapter.apply({ put: { l: put.l ?? null, t: put.t ?? null } as never, remove: [], order: read.order, reviews: {} });
    expect(store.readDeck('l')).toEqual(original);
    expect(store.readDeck('t')).toEqual(tagged);
  });

  it('reads a deck stored without card ids the same way every time, so sync sees no change', () => {
    const { storage, adapter } = setup();
    storage.setItem(INDEX_KEY, JSON.stringify(['x']));
    storage.setItem(
      deckKey('x'),
      JSON.stringify({
        type: 'deck',
        version: 1,
        name: 'Bare',
        cards: [
          { front: 'a', back: 'b' },
          { front: 'c', back: 'd' },
        ],
      }),
    );
    const first = adapter.read();
    expect(adapter.read()).toEqual(first);
    const ids = (first.decks.x?.cards as { id: string }[]).map((card) => card.id);
    expect(new Set(ids).size).toBe(2);
  });

  it('leaves a deck of another version unread, but in the list (so it is not taken for deleted)', () => {
    const { storage, adapter } = setup();
    storage.setItem(INDEX_KEY, JSON.stringify(['future', 'now']));
    storage.setItem(deckKey('future'), JSON.stringify({ type: 'deck', version: 2, name: 'Later', cards: [] }));
    storage.setItem(deckKey('now'), JSON.stringify(deck('now', 'Now')));
    const read = adapter.read();
    expect(read.order).toEqual(['future', 'now']);
    expect(Object.keys(read.decks)).toEqual(['now']);
    expect(adapter.parseDeck({ type: 'deck', version: 2, name: 'Later', cards: [] }, 'future')).toBeNull();
    expect(adapter.parseDeck({ type: 'calendar', name: 'x' }, 'c')).toBeNull();
  });
});

describe('the review logs as sync carries them', () => {
  const caps: unknown[] = [undefined, null, -1, 2.5, 10_000, 'many', 0, 7, 9999];

  it("reads the daily new-card cap as the review log does, its default from the feature's one constant", () => {
    const { storage, store, adapter } = setup();
    caps.forEach((cap, i) => {
      const id = `d${i}`;
      store.saveDeck(deck(id, id));
      storage.setItem(reviewsKey(id), JSON.stringify({ type: 'reviews', version: 1, newPerDay: cap, items: {}, log: [] }));
    });
    const read = adapter.read();
    caps.forEach((cap, i) => {
      const id = `d${i}`;
      expect(read.reviews[id]?.newPerDay, `stored cap ${String(cap)}`).toBe(store.readReviews(id).newPerDay);
      // The same cap arriving in a vault reads the same.
      expect(adapter.parseReviews(cap, [], undefined).newPerDay, `vault cap ${String(cap)}`).toBe(store.readReviews(id).newPerDay);
    });
    expect(adapter.parseReviews(undefined, undefined, undefined)).toEqual({ newPerDay: DEFAULT_NEW_PER_DAY, log: [], seeds: {} });
  });

  it('keeps the marks the review log keeps, whether they come from storage or from a vault', () => {
    const { storage, store, adapter } = setup();
    store.saveDeck(deck('m', 'Marks'));
    const log = [['m-c0', 3, 'good'], ['m-c0', 1, 'again'], ['m-c0', 2, 'meh'], ['', 4, 'good'], 'junk'];
    storage.setItem(reviewsKey('m'), JSON.stringify({ type: 'reviews', version: 1, newPerDay: 5, seeds: {}, items: {}, log }));
    expect(adapter.read().reviews.m).toEqual({ newPerDay: 5, seeds: {}, log: store.readReviews('m').log });
    expect(adapter.parseReviews(5, log, {})).toEqual({ newPerDay: 5, seeds: {}, log: store.readReviews('m').log });
    expect(store.readReviews('m').log).toEqual([
      ['m-c0', 1, 'again'],
      ['m-c0', 3, 'good'],
    ]);
  });

  it('writes a merged log the review log reads: each item the vault changed derived from its seeds and marks, the others kept', () => {
    const { storage, store, adapter } = setup();
    store.saveDeck(deck('r', 'Reviews', ['a', 'b', 'c', 'd']));
    let here = recordMark(emptyReviews(), 'r-c0', 'good', 1_000);
    here = recordMark(here, 'r-c1', 'good', 2_000);
    here = recordMark(here, 'r-c3', 'good', 3_000);
    store.writeReviews('r', here);
    // From another device: a mark of r-c0, an imported state for r-c2, and a seed of r-c3 through its mark.
    const imported = grade(grade(null, 'good', 100), 'good', 86_400_000);
    const merged = {
      newPerDay: 12,
      log: [...here.log, ['r-c0', 5_000, 'again'] as const],
      seeds: { 'r-c2': { through: 0, state: imported }, 'r-c3': { through: 3_000, state: imported } },
    };
    adapter.apply({ put: {}, remove: [], order: null, reviews: { r: merged } });
    const read = store.readReviews('r');
    expect(read.newPerDay).toBe(12);
    expect(read.log).toEqual(merged.log);
    expect(read.seeds).toEqual(merged.seeds);
    expect(read.items['r-c1']).toEqual(here.items['r-c1']);
    // The touched items have the state their seeds and marks lead to, as if marked here.
    expect(read.items['r-c0']).toEqual(recordMark(recordMark(emptyReviews(), 'r-c0', 'good', 1_000), 'r-c0', 'again', 5_000).items['r-c0']);
    expect(read.items['r-c2']).toEqual(imported);
    expect(read.items['r-c3']).toEqual(imported);
    expect(read.items).toEqual(deriveItems(read.seeds, read.log));
    expect(JSON.parse(storage.getItem(reviewsKey('r')) ?? '{}')).toEqual(toStored(read));
  });

  it('works out the seeds of a record from before seeds once, keeps them, and sends them', () => {
    const { storage, store, adapter } = setup();
    store.saveDeck(deck('o', 'Old', ['a', 'b']));
    const anki = grade(grade(null, 'good', 100), 'good', 86_400_000);
    // As an import before seeds stored it: o-c0's state is Anki's, not what its one mark leads to.
    const replayed = grade(null, 'good', 200_000_000);
    const old = {
      type: 'reviews',
      version: 1,
      newPerDay: 20,
      items: { 'o-c0': anki, 'o-c1': replayed },
      log: [
        ['o-c0', 200_000_000, 'good'],
        ['o-c1', 200_000_000, 'good'],
      ],
    };
    storage.setItem(reviewsKey('o'), JSON.stringify(old));
    const seeds = { 'o-c0': { through: 200_000_000, state: anki } };
    expect(adapter.read().reviews.o?.seeds).toEqual(seeds);
    expect(JSON.parse(storage.getItem(reviewsKey('o')) ?? '{}')).toMatchObject({ seeds, items: old.items });
    expect(store.readReviews('o').items).toEqual(old.items);
  });
});

describe('a shared deck', () => {
  it('is added as a copy with a new id, saved now and first in the list', () => {
    const { store, adapter } = setup();
    store.saveDeck(deck('mine', 'Mine'));
    const shared = adapter.parseDeck(JSON.parse(JSON.stringify(deck('theirs', 'Theirs', ['tree']))), 'theirs');
    expect(shared).not.toBeNull();
    if (!shared) return;
    const later = new Date('2026-04-01T00:00:00.000Z');
    const id = adapter.addCopy(shared, later);
    expect(id).not.toBe('theirs');
    expect(store.readIndex()).toEqual([id, 'mine']);
    expect(store.readDeck(id)).toEqual({ ...deck('theirs', 'Theirs', ['tree']), id, createdAt: later.toISOString() });
  });

  it('is shared without the conflict notes sync left on its cards (they are this learner’s own)', () => {
    const { store, adapter } = setup();
    const noted = deck('mine', 'Mine', ['cat', 'dog']);
    store.saveDeck({ ...noted, cards: noted.cards.map((card, i) => (i === 0 ? { ...card, conflict: 'back: kat' } : card)) });
    expect(adapter.readDeck('mine')?.cards).toEqual(expect.arrayContaining([expect.objectContaining({ conflict: 'back: kat' })]));
    const shared = adapter.sharedDeck('mine');
    expect(JSON.stringify(shared)).not.toContain('kat');
    expect(shared).toEqual({ ...adapter.readDeck('mine'), cards: noted.cards.map((card) => storedCards({ ...noted, cards: [card] }).cards[0]) });
  });

  it('says in words when the copy does not fit', () => {
    const storage = new MemoryStorage(50);
    const adapter = createDecksSyncAdapter(storage, makeId);
    const shared = adapter.parseDeck(deck('big', 'Big', ['x'.repeat(100)]), 'big');
    if (!shared) throw new Error('no deck');
    expect(() => adapter.addCopy(shared, T)).toThrow(/Storage is full/);
    expect(storage.data.size).toBe(0);
  });

  it('is previewed with its name, author, description, languages and card sides, a cloze card as practice shows it', () => {
    const { adapter } = setup();
    const made = deck('p', 'Preview', ['one', 'Der {{c1::Hund}} {{c2::bellt::verb}}', '{{c1::Katze}}']);
    made.cards[2] = { ...made.cards[2], back: '' } as (typeof made.cards)[number];
    const shared = adapter.parseDeck({ ...made, author: 'Ada', description: 'Animals' }, 'p');
    if (!shared) throw new Error('no deck');
    expect(adapter.preview(shared)).toEqual({
      name: 'Preview',
      author: 'Ada',
      description: 'Animals',
      sourceLang: 'en',
      targetLang: 'nl',
      cards: [
        { front: 'one', back: 'one!' },
        { front: 'Der [...] [verb]', back: 'Der Hund bellt\nDer {{c1::Hund}} {{c2::bellt::verb}}!' },
        { front: '[...]', back: 'Katze' },
      ],
    });
  });
});

describe('a copy taking a shared deck’s update', () => {
  it('keeps the copy’s id, its card ids and its review log; adds, fixes and removes the sharer’s cards', () => {
    const { store, adapter, storage } = setup();
    const first = adapter.parseDeck(deck('theirs', 'Theirs', ['tre', 'bush', 'moss']), 'theirs');
    if (!first) throw new Error('no deck');
    const id = adapter.addCopy(first, T);
    const base = adapter.shareBase(first);
    store.writeReviews(id, recordMark(emptyReviews(), 'theirs-c0', 'good', T.getTime()));
    const progress = storage.getItem(reviewsKey(id));

    const fixed = { ...deck('theirs', 'Theirs', ['tree', 'bush']), cards: [] as Deck['cards'] };
    fixed.cards = [
      { ...emptyCard('theirs-c0'), front: 'tree', back: 'tre!' },
      { ...emptyCard('theirs-c1'), front: 'bush', back: 'bush!' },
      { ...emptyCard('new-card'), front: 'fern', back: 'fern!' },
    ];
    const incoming = adapter.parseDeck(storedCards(fixed), 'theirs');
    if (!incoming) throw new Error('no deck');
    const plan = adapter.planUpdate(id, incoming, base);
    expect(plan && [plan.added.length, plan.changed.length, plan.removed.length, plan.kept.length, plan.worthShowing]).toEqual([1, 1, 1, 0, true]);
    // Planning writes nothing.
    expect(store.readDeck(id)?.cards.map((card) => card.front)).toEqual(['tre', 'bush', 'moss']);

    const later = new Date('2026-04-01T00:00:00.000Z');
    const taken = adapter.takeUpdate(id, incoming, base, later);
    expect(taken?.removed).toEqual([{ front: 'moss', back: 'moss!' }]);
    const copy = store.readDeck(id);
    expect(copy?.cards.map((card) => [card.id, card.front])).toEqual([
      ['theirs-c0', 'tree'],
      ['theirs-c1', 'bush'],
      ['new-card', 'fern'],
    ]);
    expect(copy?.createdAt).toBe(later.toISOString());
    expect(storage.getItem(reviewsKey(id))).toBe(progress);
    // Taken again with the base it left: nothing more to take.
    expect(adapter.planUpdate(id, incoming, taken?.base)?.worthShowing).toBe(false);
  });

  it('plans nothing for a copy, a deck or a base it cannot read', () => {
    const { adapter } = setup();
    const shared = adapter.parseDeck(deck('s', 'S'), 's');
    if (!shared) throw new Error('no deck');
    expect(adapter.planUpdate('missing', shared, adapter.shareBase(shared))).toBeNull();
    const id = adapter.addCopy(shared, T);
    expect(adapter.planUpdate(id, shared, { cards: 'no' })).toBeNull();
    expect(adapter.takeUpdate(id, shared, null, T)).toBeNull();
  });
});
