// What sync carries of the flashcards (lib/syncAdapters.ts's DecksAdapter), built on this
// feature's own keys, versions and schemas (storage.ts, deck.ts, srs/reviewLog.ts): the decks of
// the list, their review logs, "Add to my decks" for a shared deck, and the files the cards'
// pictures and sounds are (the media store). RouterApp hands it to
// sync; sync never names these keys. Beside storage.ts, the only flashcards code that touches
// the browser's storage.
import type { DeckPreview, DecksAdapter, DecksChange, MediaAdapter, ShareUpdatePlan, SyncDeck, SyncedReviews } from '../lib/syncAdapters';
import { listedSides } from './cloze';
import { referencedHashes } from './media/ref';
import { registerMediaFetcher } from './media/remote';
import { mediaStore, type MediaStore } from './media/store';
import { storedCards, type Deck } from './deck';
import { browserStorage, createDeckStore, deckDraftKey, deckKey, INDEX_KEY, parseDeck, reviewsKey, sessionKey, summaryKey } from './storage';
import {
  deriveItems,
  emptyReviews,
  newPerDayOr,
  parseLog,
  parseMarks,
  parseReviews,
  parseSeeds,
  parseSettings,
  predatesSeeds,
  toStored,
  type ReviewEntry,
  type Seed,
} from './srs/reviewLog';
import { sameItemState } from './srs/schedule';
import { hasChanges, parseShareBase, planShareUpdate, shareBaseOf, type ShareUpdate } from './shareUpdate';
import { newId } from './uuid';

/**
 * Ids for cards stored without one, the same on every read of the deck (`{deckId}-card-{n}`): a
 * random id would make every sync see a changed deck.
 */
export const stableCardIds = (deckId: string) => {
  let n = 0;
  return () => `${deckId}-card-${(n += 1)}`;
};

/**
 * A deck as sync carries it (a plain object of the deck's own fields), its cards as storage
 * writes them: a deck without tags or suspended cards is the same as before they existed.
 */
const synced = (deck: Deck): SyncDeck => storedCards(deck);

const planOf = (update: ShareUpdate): ShareUpdatePlan => ({
  name: update.deck.name,
  added: update.added.map(listedSides),
  changed: update.changed.map(({ before, after }) => ({ before: listedSides(before), after: listedSides(after) })),
  removed: update.removed.map(listedSides),
  kept: update.kept.map(listedSides),
  detailsChanged: update.detailsChanged,
  worthShowing: hasChanges(update),
  base: update.base,
});

/** Each item's marks, as one text per item key. */
function marksByKey(log: readonly ReviewEntry[]): Map<string, string> {
  const marks = new Map<string, string>();
  for (const [key, at, mark] of log) marks.set(key, `${marks.get(key) ?? ''}${at}${mark === 'good' ? '+' : '-'}`);
  return marks;
}

const sameSeed = (a: Seed | undefined, b: Seed | undefined) => a === b || (!!a && !!b && a.through === b.through && sameItemState(a.state, b.state));

export function createDecksSyncAdapter(storage: Storage | null, makeId: () => string = newId): DecksAdapter {
  const store = createDeckStore(storage, makeId);

  const readJson = (key: string): unknown => {
    try {
      const raw = storage?.getItem(key) ?? null;
      return raw === null ? undefined : (JSON.parse(raw) as unknown);
    } catch {
      return undefined;
    }
  };

  const readDeck = (id: string): Deck | null => parseDeck(readJson(deckKey(id)), id, stableCardIds(id));

  const write = (key: string, value: unknown) => {
    if (!storage) throw new Error('browser storage is not available');
    storage.setItem(key, JSON.stringify(value));
  };

  /**
   * The record after the merge: the vault's cap, seeds and marks, and each item's state derived
   * from them (reviewLog.ts deriveItems), as on every other device; an item whose seed and marks
   * did not change keeps the state it has, which is the same derivation's.
   */
  const mergedReviews = (deckId: string, merged: SyncedReviews) => {
    const current = parseReviews(readJson(reviewsKey(deckId))) ?? emptyReviews();
    const log = parseLog(merged.log);
    const seeds = parseSeeds(merged.seeds);
    const before = marksByKey(current.log);
    const after = marksByKey(log);
    const touched = new Set<string>();
    for (const key of new Set([...before.keys(), ...after.keys(), ...Object.keys(current.seeds), ...Object.keys(seeds)])) {
      if (before.get(key) !== after.get(key) || !sameSeed(current.seeds[key], seeds[key])) touched.add(key);
    }
    // New parameters or retention from another device: every item is derived again with them.
    const settings = parseSettings(merged.params, merged.retention);
    const resettled =
      JSON.stringify([current.params ?? null, current.retention ?? null]) !== JSON.stringify([settings.params ?? null, settings.retention ?? null]);
    const items = resettled ? {} : Object.fromEntries(Object.entries(current.items).filter(([key]) => !touched.has(key)));
    Object.assign(items, deriveItems(seeds, log, resettled ? undefined : touched, settings));
    return toStored({ newPerDay: newPerDayOr(merged.newPerDay), seeds, items, log, ...settings });
  };

  /** A shared deck's update planned against the stored copy, now. */
  const updateOf = (copyId: string, value: SyncDeck, baseValue: unknown, now: Date): ShareUpdate | null => {
    const copy = readDeck(copyId);
    const incoming = parseDeck(value, value.id, stableCardIds(value.id));
    const base = parseShareBase(baseValue);
    return copy && incoming && base ? planShareUpdate(copy, base, incoming, now) : null;
  };

  return {
    read() {
      const order = store.readIndex();
      const decks: Record<string, SyncDeck> = {};
      const reviews: Record<string, SyncedReviews> = {};
      for (const id of order) {
        const deck = readDeck(id);
        if (!deck) continue;
        decks[id] = synced(deck);
        const stored = readJson(reviewsKey(id));
        if (!predatesSeeds(stored)) {
          const marks = parseMarks(stored);
          if (marks) reviews[id] = marks;
          continue;
        }
        // A record from before seeds has its seeds worked out once, and kept (best effort).
        const record = parseReviews(stored);
        if (!record) continue;
        reviews[id] = { newPerDay: record.newPerDay, log: record.log, seeds: record.seeds, ...parseSettings(record.params, record.retention) };
        try {
          write(reviewsKey(id), toStored(record));
          store.forgetSummary(id);
        } catch {
          // A full quota: worked out again next time.
        }
      }
      return { order, decks, reviews };
    },
    readDeck(id) {
      const deck = readDeck(id);
      return deck && synced(deck);
    },
    sharedDeck(id) {
      const deck = readDeck(id);
      return deck && synced({ ...deck, cards: deck.cards.map((card) => ({ ...card, conflict: undefined })) });
    },
    parseDeck(value, id) {
      const deck = parseDeck(value, id, stableCardIds(id));
      return deck && synced(deck);
    },
    parseReviews: (newPerDay, log, seeds, params, retention) => ({
      newPerDay: newPerDayOr(newPerDay),
      log: parseLog(log),
      seeds: parseSeeds(seeds),
      ...parseSettings(params, retention),
    }),
    apply(change: DecksChange) {
      for (const [id, value] of Object.entries(change.put)) {
        // Checked again: nothing reaches storage that this feature would not read back.
        const deck = parseDeck(value, id, stableCardIds(id));
        if (deck) write(deckKey(id), storedCards(deck));
        // The deck list's summary of it is rebuilt from the new record on its next visit.
        store.forgetSummary(id);
      }
      for (const id of change.remove) {
        for (const key of [deckKey(id), reviewsKey(id), sessionKey(id), deckDraftKey(id), summaryKey(id)]) storage?.removeItem(key);
      }
      if (change.order) write(INDEX_KEY, change.order);
      for (const [id, merged] of Object.entries(change.reviews)) {
        write(reviewsKey(id), mergedReviews(id, merged));
        store.forgetSummary(id);
      }
    },
    addCopy(value, now) {
      const id = makeId();
      const deck = parseDeck(value, id, stableCardIds(id));
      if (!deck) throw new Error('This shared deck cannot be read by this version of the app.');
      const saved = store.importDecks([{ ...deck, id, createdAt: now.toISOString() }]);
      if (!saved.ok) throw new Error(saved.error);
      return id;
    },
    shareBase(value) {
      const deck = parseDeck(value, value.id, stableCardIds(value.id));
      return deck && shareBaseOf(deck);
    },
    planUpdate(copyId, incoming, base) {
      const update = updateOf(copyId, incoming, base, new Date());
      return update && planOf(update);
    },
    takeUpdate(copyId, incoming, base, now) {
      const update = updateOf(copyId, incoming, base, now);
      if (!update) return null;
      // Only a change of the deck is saved (a save: the deck moves to the front of the list).
      if (update.deckChanged) {
        const saved = store.saveDeck(update.deck);
        if (!saved.ok) throw new Error(saved.error);
      }
      return planOf(update);
    },
    preview(value): DeckPreview {
      const deck = parseDeck(value, value.id, stableCardIds(value.id));
      if (!deck) return { name: value.name, author: '', description: '', sourceLang: '', targetLang: '', cards: [] };
      return {
        name: deck.name,
        author: deck.author,
        description: deck.description,
        sourceLang: deck.sourceLang,
        targetLang: deck.targetLang,
        cards: deck.cards.map(listedSides),
      };
    },
  };
}

/** The adapter RouterApp hands to sync. */
export const decksSyncAdapter: DecksAdapter = createDecksSyncAdapter(browserStorage());

/**
 * The cards' pictures and sounds as sync carries them: the files a deck's cards refer to (read as
 * this feature reads a deck), and the one media store.
 */
export function createMediaSyncAdapter(store: MediaStore): MediaAdapter {
  return {
    referenced(value) {
      const deck = parseDeck(value, value.id, stableCardIds(value.id));
      return deck ? [...referencedHashes(deck.cards)] : [];
    },
    has: (hash) => store.has(hash),
    get: (hash) => store.get(hash),
    put: (bytes, type) => store.put(bytes, type),
    setFetcher: registerMediaFetcher,
  };
}

export const mediaSyncAdapter: MediaAdapter = createMediaSyncAdapter(mediaStore);
