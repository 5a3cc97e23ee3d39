// The only code that touches localStorage for flashcards (DESIGN.md "Browser storage"). Reads are
// validated: a record that does not parse or does not have the shape of a deck is treated as absent
// and never reaches a screen; missing card ids are generated and missing texts become empty.
// Writes report a full quota as a message the screen shows, and never leave a half-written save.
import * as v from 'valibot';
import { isRecord, nonEmpty, orNull, parseOrNull, record, text } from '../lib/schema';
import {
  CardSchema,
  DECK_VERSION,
  DeckMetaSchema,
  defaultMeta,
  metaEntries,
  metaOf,
  moveToFront,
  storedCards,
  type Card,
  type Deck,
  type DeckMeta,
} from './deck';
import { announceLocalChange } from '../lib/localChanges';
import { newId } from './uuid';
import { emptyReviews, isEmptyReviews, parseReviews, toStored, type ReviewRecord } from './srs/reviewLog';
import { parseSession, toStoredSession, type SavedSession } from './srs/session';
import { dueCountsAt, parseSummary, summarize, toStoredSummary, type DeckSummary, type DueCounts } from './deckSummary';

export const INDEX_KEY = 'decks:index';
export const DRAFT_KEY = 'deck:create:draft';
export const LAST_SAVED_KEY = 'deck:lastSaved';
export const deckKey = (id: string) => `decks:${id}`;
/** Unsaved changes to a saved deck, one per deck, so editing one deck never overwrites another's. */
export const deckDraftKey = (id: string) => `deck:draft:${id}`;
/** A deck's review log and schedule (srs/reviewLog.ts). */
export const reviewsKey = (deckId: string) => `reviews:${deckId}`;
/** What the deck list shows of a deck, kept beside it (deckSummary.ts). */
export const summaryKey = (deckId: string) => `deck:summary:${deckId}`;
/** A deck's unfinished practice session (srs/session.ts). */
export const sessionKey = (deckId: string) => `practice:session:${deckId}`;
/** The practice screen's options: typing mode and strict comparison. */
export const PRACTICE_OPTIONS_KEY = 'practice:options';
/** ISO time of the last export of all decks, for the backup reminder. */
export const LAST_EXPORT_KEY = 'decks:lastExport';
/** ISO time the backup reminder was last dismissed. */
export const REMINDER_DISMISSED_KEY = 'decks:backupReminderDismissed';

/** The editor's unsaved work: metadata plus cards, and which saved deck it belongs to (if any). */
export interface Draft {
  deckId: string | null;
  meta: DeckMeta;
  cards: Card[];
  /** ISO time of the last change, for the "restored" notice; absent in older drafts. */
  savedAt?: string;
}

export type WriteResult = { ok: true } | { ok: false; error: string };

/** A deck of the list: its summary and its due counts at the time the list was read. */
export type ListedSummary = DeckSummary & DueCounts;

export interface PracticeOptions {
  /** Type the answer before flipping. */
  typing: boolean;
  /** Accents and case count when comparing a typed answer. */
  strict: boolean;
}

const PracticeOptionsSchema = record({ typing: v.fallback(v.boolean(), false), strict: v.fallback(v.boolean(), false) });

export interface DeckStore {
  readIndex(): string[];
  /** The deck stored under `id`, or null when absent, unreadable or not a deck. */
  readDeck(id: string): Deck | null;
  /** The readable decks of the index, in index order. */
  listDecks(): Deck[];
  /**
   * What the deck list shows of the readable decks of the index, in index order, with their due
   * counts at `now`: from the stored summaries, each rebuilt (and stored again) from the deck and
   * its log when absent, unreadable, made from other stored texts or from a later day.
   */
  listSummaries(now: number): ListedSummary[];
  /** Drops the deck's summary, for a writer that changed its record or log (sync). */
  forgetSummary(deckId: string): void;
  /** Writes the deck and moves its id to the front of the index; on failure nothing changes. */
  saveDeck(deck: Deck): WriteResult;
  deleteDeck(id: string): WriteResult;
  /** The draft of the saved deck `deckId` (deck:draft:{id}), or of a new deck (deck:create:draft). */
  readDraft(deckId?: string | null): Draft | null;
  /** Writes under the key of the draft's own deck id. */
  writeDraft(draft: Draft): WriteResult;
  clearDraft(deckId?: string | null): void;
  readLastSaved(): Deck | null;
  /**
   * Adds decks (ids already free) in one step: records and their review logs (by deck id) first,
   * then the index with the new ids at the front in the given order. On failure the records
   * written are removed and nothing changes.
   */
  importDecks(decks: readonly Deck[], reviews?: Readonly<Record<string, ReviewRecord>>): WriteResult;
  /** The deck's review log; an empty one when there is none or it cannot be read. */
  readReviews(deckId: string): ReviewRecord;
  /** The review log of every deck in `deckIds` that has one worth keeping (for backups). */
  readAllReviews(deckIds: readonly string[]): Record<string, ReviewRecord>;
  /** Replaces the deck's review log; on failure (a full quota) the stored one stays as it was. */
  writeReviews(deckId: string, reviews: ReviewRecord): WriteResult;
  readSession(deckId: string): SavedSession | null;
  writeSession(deckId: string, session: SavedSession): WriteResult;
  clearSession(deckId: string): void;
  readPracticeOptions(): PracticeOptions;
  writePracticeOptions(options: PracticeOptions): void;
  /** ISO time of the last full export, or null. */
  readLastExport(): string | null;
  recordExport(now: Date): void;
  readReminderDismissed(): string | null;
  dismissReminder(now: Date): void;
}

function parseJson(raw: string | null): unknown {
  if (raw === null) return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

/** Cards from storage: non-objects skipped, ids generated when missing, texts defaulted to ''. */
export function parseCards(value: unknown, makeId: () => string): Card[] | null {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return null;
  const seen = new Set<string>();
  const cards: Card[] = [];
  for (const entry of value as unknown[]) {
    const card = parseOrNull(CardSchema, entry);
    if (!card) continue;
    let id = card.id !== '' ? card.id : makeId();
    // Duplicate ids would confuse row identity and practice results; give the copy its own.
    if (seen.has(id)) id = makeId();
    seen.add(id);
    cards.push({ ...card, id });
  }
  return cards;
}

/** The metadata of a record; every field that is missing or unusable gets its default. */
export function parseMeta(value: unknown): DeckMeta {
  return parseOrNull(DeckMetaSchema, value) ?? defaultMeta();
}

/**
 * A deck record as stored under decks:{id}: an object whose type (when present) is 'deck', whose
 * version (when present) is 1, and whose cards (when present) are a list.
 */
const DeckRecordSchema = record({
  ...metaEntries,
  type: v.optional(v.literal('deck')),
  version: v.optional(v.literal(DECK_VERSION)),
  cards: v.nullish(v.array(v.unknown())),
  createdAt: text,
});

/** The editor's draft under deck:create:draft; older drafts kept the metadata at the top level. */
const DraftSchema = record({
  deckId: orNull(nonEmpty),
  meta: orNull(DeckMetaSchema),
  cards: v.nullish(v.array(v.unknown())),
  savedAt: v.fallback(v.optional(v.pipe(v.string(), v.isoTimestamp())), undefined),
});

/** The deck stored under `id`, or null when it has not the shape of one. */
export function parseDeck(value: unknown, id: string, makeId: () => string): Deck | null {
  const stored = parseOrNull(DeckRecordSchema, value);
  const cards = stored && parseCards(stored.cards, makeId);
  if (!stored || !cards) return null;
  return { ...metaOf(stored), id, cards, createdAt: stored.createdAt, type: 'deck', version: DECK_VERSION };
}

export function parseDraft(value: unknown, makeId: () => string): Draft | null {
  const draft = parseOrNull(DraftSchema, value);
  const cards = draft && parseCards(draft.cards, makeId);
  if (!draft || !cards) return null;
  const parsed: Draft = { deckId: draft.deckId, meta: draft.meta ?? parseMeta(value), cards };
  return draft.savedAt === undefined ? parsed : { ...parsed, savedAt: draft.savedAt };
}

function isQuotaError(error: unknown): boolean {
  // Firefox used its own name for the same condition.
  return (error instanceof DOMException || error instanceof Error) && (error.name === 'QuotaExceededError' || error.name === 'NS_ERROR_DOM_QUOTA_REACHED');
}

/** The message a screen shows for a failed write. */
export function describeWriteError(error: unknown, what: string): string {
  if (isQuotaError(error)) {
    return `Storage is full: ${what} could not be saved. Delete decks you no longer need to free space; nothing saved before was lost.`;
  }
  const detail = error instanceof Error ? error.message : String(error);
  return `Could not save ${what}: ${detail}`;
}

/** The browser's localStorage, or null where it is disabled (reading the property can throw). */
export function browserStorage(): Storage | null {
  try {
    return typeof window === 'undefined' ? null : window.localStorage;
  } catch {
    return null;
  }
}

export function createDeckStore(storage: Storage | null, makeId: () => string = newId): DeckStore {
  const read = (key: string): unknown => {
    if (!storage) return undefined;
    try {
      return parseJson(storage.getItem(key));
    } catch {
      return undefined;
    }
  };

  const write = (key: string, value: string) => {
    if (!storage) throw new Error('browser storage is not available');
    storage.setItem(key, value);
  };

  const remove = (key: string) => {
    try {
      storage?.removeItem(key);
    } catch {
      // Nothing more can be done; a stale entry is harmless.
    }
  };

  const readIndex = (): string[] => {
    const value = read(INDEX_KEY);
    if (!Array.isArray(value)) return [];
    const ids = (value as unknown[]).filter((id): id is string => typeof id === 'string' && id !== '');
    return [...new Set(ids)];
  };

  // What was parsed, by the text it was parsed from: reading a deck or a log whose stored text has
  // not changed since gives the same object without parsing it again (the deck list reads every
  // deck and log on each visit). One entry per deck, replaced when its text changes, dropped with
  // the deck; the objects are never changed in place by anyone.
  const parsed = new Map<string, { raw: string; value: unknown }>();
  const readParsed = <T>(key: string, parse: (value: unknown) => T): T => {
    let raw: string | null;
    try {
      raw = storage?.getItem(key) ?? null;
    } catch {
      raw = null;
    }
    if (raw === null) {
      parsed.delete(key);
      return parse(undefined);
    }
    const cached = parsed.get(key);
    if (cached && cached.raw === raw) return cached.value as T;
    const value = parse(parseJson(raw));
    parsed.set(key, { raw, value });
    return value;
  };

  const readDeck = (id: string) => readParsed(deckKey(id), (value) => parseDeck(value, id, makeId));
  const readReviews = (deckId: string) => readParsed(reviewsKey(deckId), (value) => parseReviews(value) ?? emptyReviews());

  /** The length of the text stored under `key`, -1 when there is none. */
  const storedLength = (key: string): number => {
    try {
      return storage?.getItem(key)?.length ?? -1;
    } catch {
      return -1;
    }
  };

  /**
   * Stores the summary of `deck` as it is stored now. A summary that cannot be written is removed,
   * so the list never trusts an old one: it then rebuilds it from the deck.
   */
  const writeSummary = (deck: Deck, now: number): DeckSummary => {
    const summary = summarize(deck, readReviews(deck.id), now);
    try {
      write(summaryKey(deck.id), JSON.stringify(toStoredSummary(summary, storedLength(deckKey(deck.id)), storedLength(reviewsKey(deck.id)))));
    } catch {
      remove(summaryKey(deck.id));
    }
    return summary;
  };

  const refreshSummary = (deckId: string) => {
    const deck = readDeck(deckId);
    if (deck) writeSummary(deck, Date.now());
    else remove(summaryKey(deckId));
  };

  const listedSummary = (id: string, now: number): ListedSummary | null => {
    const deckLength = storedLength(deckKey(id));
    if (deckLength < 0) return null;
    const stored = parseSummary(read(summaryKey(id)), id);
    if (stored && stored.deckLength === deckLength && stored.reviewsLength === storedLength(reviewsKey(id))) {
      const counts = dueCountsAt(stored.schedule, now);
      if (counts) {
        return { ...stored, ...counts };
      }
    }
    const deck = readDeck(id);
    if (!deck) return null;
    const summary = writeSummary(deck, now);
    // A summary made now holds now.
    return { ...summary, ...(dueCountsAt(summary.schedule, now) ?? { due: 0, reviewDue: 0 }) };
  };

  const readTime = (key: string): string | null => {
    const value = read(key);
    return typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? value : null;
  };

  // Timestamps are conveniences: a write that fails only means a reminder shows again.
  const writeTime = (key: string, now: Date) => {
    try {
      write(key, JSON.stringify(now.toISOString()));
    } catch {
      // Nothing to report.
    }
  };

  return {
    readIndex,
    readDeck,
    listDecks() {
      const decks: Deck[] = [];
      for (const id of readIndex()) {
        const deck = readDeck(id);
        if (deck) decks.push(deck);
      }
      return decks;
    },
    listSummaries(now) {
      const listed: ListedSummary[] = [];
      for (const id of readIndex()) {
        const summary = listedSummary(id, now);
        if (summary) listed.push(summary);
      }
      return listed;
    },
    forgetSummary: (deckId) => remove(summaryKey(deckId)),
    saveDeck(deck) {
      const key = deckKey(deck.id);
      let previous: string | null;
      try {
        previous = storage?.getItem(key) ?? null;
        write(key, JSON.stringify(storedCards(deck)));
      } catch (error) {
        return { ok: false, error: describeWriteError(error, 'the deck') };
      }
      try {
        write(INDEX_KEY, JSON.stringify(moveToFront(readIndex(), deck.id)));
      } catch (error) {
        // Put the deck record back as it was so a failed save changes nothing.
        try {
          if (previous === null) storage?.removeItem(key);
          else storage?.setItem(key, previous);
        } catch {
          // Restoring a value that fitted before cannot run out of space; ignore the impossible.
        }
        return { ok: false, error: describeWriteError(error, 'the deck') };
      }
      // deck:lastSaved is a convenience copy: when it does not fit, drop the stale one rather than
      // fail a save that is already complete.
      try {
        write(LAST_SAVED_KEY, JSON.stringify(storedCards(deck)));
      } catch {
        remove(LAST_SAVED_KEY);
      }
      refreshSummary(deck.id);
      announceLocalChange();
      return { ok: true };
    },
    deleteDeck(id) {
      try {
        if (!storage) throw new Error('browser storage is not available');
        storage.removeItem(deckKey(id));
        storage.removeItem(reviewsKey(id));
        storage.removeItem(sessionKey(id));
        storage.removeItem(deckDraftKey(id));
        storage.removeItem(summaryKey(id));
        parsed.delete(deckKey(id));
        parsed.delete(reviewsKey(id));
        write(INDEX_KEY, JSON.stringify(readIndex().filter((other) => other !== id)));
        announceLocalChange();
        return { ok: true };
      } catch (error) {
        return { ok: false, error: describeWriteError(error, 'the deck list') };
      }
    },
    readDraft(deckId = null) {
      return parseDraft(read(deckId === null ? DRAFT_KEY : deckDraftKey(deckId)), makeId);
    },
    writeDraft(draft) {
      try {
        write(
          draft.deckId === null ? DRAFT_KEY : deckDraftKey(draft.deckId),
          JSON.stringify({ type: 'deck-draft', version: DECK_VERSION, ...storedCards(draft) }),
        );
        return { ok: true };
      } catch (error) {
        return { ok: false, error: describeWriteError(error, 'your latest changes') };
      }
    },
    clearDraft(deckId = null) {
      remove(deckId === null ? DRAFT_KEY : deckDraftKey(deckId));
    },
    readLastSaved() {
      const value = read(LAST_SAVED_KEY);
      return isRecord(value) && typeof value.id === 'string' ? parseDeck(value, value.id, makeId) : null;
    },
    importDecks(decks, reviews = {}) {
      const written: string[] = [];
      try {
        for (const deck of decks) {
          const key = deckKey(deck.id);
          if (storage?.getItem(key) != null) throw new Error(`a deck with id ${deck.id} already exists`);
          write(key, JSON.stringify(storedCards(deck)));
          written.push(key);
          const log = reviews[deck.id];
          if (log && !isEmptyReviews(log)) {
            write(reviewsKey(deck.id), JSON.stringify(toStored(log)));
            written.push(reviewsKey(deck.id));
          }
        }
        const ids = decks.map((deck) => deck.id);
        write(INDEX_KEY, JSON.stringify([...ids, ...readIndex().filter((id) => !ids.includes(id))]));
        for (const deck of decks) refreshSummary(deck.id);
        announceLocalChange();
        return { ok: true };
      } catch (error) {
        for (const key of written) remove(key);
        return { ok: false, error: describeWriteError(error, decks.length === 1 ? 'the deck' : 'the decks') };
      }
    },
    readReviews,
    readAllReviews(deckIds) {
      const all: Record<string, ReviewRecord> = {};
      for (const id of deckIds) {
        const reviews = parseReviews(read(reviewsKey(id)));
        if (reviews && !isEmptyReviews(reviews)) all[id] = reviews;
      }
      return all;
    },
    writeReviews(deckId, reviews) {
      try {
        write(reviewsKey(deckId), JSON.stringify(toStored(reviews)));
        refreshSummary(deckId);
        announceLocalChange();
        return { ok: true };
      } catch (error) {
        return { ok: false, error: describeWriteError(error, 'this review') };
      }
    },
    readSession: (deckId) => parseSession(read(sessionKey(deckId))),
    writeSession(deckId, session) {
      try {
        write(sessionKey(deckId), JSON.stringify(toStoredSession(session)));
        return { ok: true };
      } catch (error) {
        return { ok: false, error: describeWriteError(error, 'your place in this session') };
      }
    },
    clearSession: (deckId) => remove(sessionKey(deckId)),
    readPracticeOptions: () => parseOrNull(PracticeOptionsSchema, read(PRACTICE_OPTIONS_KEY)) ?? { typing: false, strict: false },
    writePracticeOptions(options) {
      try {
        write(PRACTICE_OPTIONS_KEY, JSON.stringify(options));
      } catch {
        // An option that is not remembered only needs setting again.
      }
    },
    readLastExport: () => readTime(LAST_EXPORT_KEY),
    recordExport: (now) => writeTime(LAST_EXPORT_KEY, now),
    readReminderDismissed: () => readTime(REMINDER_DISMISSED_KEY),
    dismissReminder: (now) => writeTime(REMINDER_DISMISSED_KEY, now),
  };
}

/** The store the screens use. */
export const deckStore: DeckStore = createDeckStore(browserStorage());
