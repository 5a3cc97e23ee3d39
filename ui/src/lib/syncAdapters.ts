// What sync carries of other features, and how it reaches them. Each feature exports an adapter
// for what it stores, built on its own keys, versions and schemas (flashcards/syncAdapter.ts,
// calendars/syncAdapter.ts); RouterApp hands them to sync here, as it hands slots to screens. Sync
// keeps the merge, the crypto and the wire format, and declares no other feature's keys. Types and
// the hand-over only: lib knows no feature.

/**
 * A deck as its feature stores it. Sync reads three of its fields, each typed here so that a deck
 * without them does not compile into an adapter: `id`, `name` (a conflict copy is named after
 * it) and `createdAt` (when it was last saved, which orders concurrent saves). The rest it
 * carries untouched.
 */
export type SyncDeck = { readonly id: string; readonly name: string; readonly createdAt: string } & Readonly<Record<string, unknown>>;

/** One review mark: item key, epoch ms, grade. */
export type SyncMark = readonly [key: string, at: number, grade: string];

/**
 * Where an item's schedule starts before its marks (the feature's own rule: an import's memory
 * state, marks its log dropped): the time of the last mark it holds, and the state, which sync
 * carries untouched. Of two seeds of one item the one through the later mark wins.
 */
export interface SyncSeed {
  readonly through: number;
  readonly state: unknown;
}

/**
 * What sync carries of a deck's review log: the daily new-card cap, every mark (oldest first) and
 * the items' seeds; the feature derives its schedule from these alone, the same on every device.
 */
export interface SyncedReviews {
  newPerDay: number;
  log: readonly SyncMark[];
  /** Seeds by item key; absent or empty when there are none. */
  seeds?: Readonly<Record<string, SyncSeed>>;
  /** The deck's FSRS parameters and desired retention ("Optimise my schedule"): one setting with newPerDay, absent for the defaults. */
  params?: readonly number[];
  retention?: number;
}

/** The decks of this browser as the feature reads them. */
export interface DecksSnapshot {
  /**
   * The deck list, first shown first. An id whose stored record the feature cannot read is in the
   * list but not in `decks`: sync then neither deletes it nor counts it as deleted.
   */
  order: readonly string[];
  decks: Readonly<Record<string, SyncDeck>>;
  /** The review log of each readable deck that has one, by deck id. */
  reviews: Readonly<Record<string, SyncedReviews>>;
}

/** A merged state, as the changes to write into this browser. */
export interface DecksChange {
  /** Decks to write (new here, or changed), by id. */
  put: Readonly<Record<string, SyncDeck>>;
  /** Decks deleted on another device: each goes with everything its feature keeps for it. */
  remove: readonly string[];
  /** The deck list's new order, or null when it stays as it is. */
  order: readonly string[] | null;
  /** Review logs to replace, by deck id; the feature rebuilds what it derives from the marks and seeds. */
  reviews: Readonly<Record<string, SyncedReviews>>;
}

/** What a shared deck's page shows. */
export interface DeckPreview {
  name: string;
  author: string;
  description: string;
  sourceLang: string;
  targetLang: string;
  /** The cards as a list shows them (the feature's rule: e.g. a cloze card's deletions blank on its front, revealed on its back). */
  cards: readonly CardText[];
}

/** A card as the review of a shared deck's update lists it (as DeckPreview's cards are; a back may hold a second line). */
export interface CardText {
  front: string;
  back: string;
}

/**
 * What taking a shared deck's newer version does to the learner's copy of it (the feature holds
 * the rule: ids and progress kept, the learner's edits win), and what to remember afterwards.
 */
export interface ShareUpdatePlan {
  /** The copy's name as it is now. */
  name: string;
  added: readonly CardText[];
  changed: readonly { before: CardText; after: CardText }[];
  removed: readonly CardText[];
  /** Cards the sharer changed or removed that keep the learner's edit. */
  kept: readonly CardText[];
  /** The deck's name, description or options change. */
  detailsChanged: boolean;
  /** Whether there is anything to show (else the update is taken without asking). */
  worthShowing: boolean;
  /** What to remember of the new version (the feature's own JSON shape; sync keeps it opaque). */
  base: unknown;
}

export interface DecksAdapter {
  read(): DecksSnapshot;
  /** One stored deck, or null when there is none or it cannot be read. */
  readDeck(id: string): SyncDeck | null;
  /** One stored deck as a share link carries it: without what is this learner's own (notes sync left on cards). */
  sharedDeck(id: string): SyncDeck | null;
  /** A deck from a vault or a shared link, checked as the feature checks its own; null when it is none this app reads. */
  parseDeck(value: unknown, id: string): SyncDeck | null;
  /** A review log from a vault, checked as the feature checks its own (the cap's default included). */
  parseReviews(newPerDay: unknown, log: unknown, seeds: unknown, params?: unknown, retention?: unknown): SyncedReviews;
  /** Writes a merged state, announcing nothing; throws when storage refuses (a full quota). */
  apply(change: DecksChange): void;
  /** "Add to my decks": a copy with a new id, saved now and first in the list; its id. Throws with words when it cannot be saved. */
  addCopy(deck: SyncDeck, now: Date): string;
  preview(deck: SyncDeck): DeckPreview;
  /** What to remember of a shared deck a copy was made from (the feature's own JSON shape). */
  shareBase(deck: SyncDeck): unknown;
  /** What taking `incoming` would do to the copy `copyId`, last given `base`; null when the copy, the deck or the base cannot be read. */
  planUpdate(copyId: string, incoming: SyncDeck, base: unknown): ShareUpdatePlan | null;
  /** Takes it: saves the copy (a local change) and says what it did; null as for planUpdate. Throws with words when storage refuses. */
  takeUpdate(copyId: string, incoming: SyncDeck, base: unknown, now: Date): ShareUpdatePlan | null;
}

export interface CalendarsAdapter {
  /** The saved calendar list, checked. */
  read(): readonly unknown[];
  /** A list from a vault, checked as the feature checks its own. */
  parse(value: unknown): readonly unknown[];
  /** Replaces the list, announcing nothing; throws when storage refuses. */
  write(list: readonly unknown[]): void;
}

/** A media file as the feature keeps it: its bytes and MIME type. */
export interface SyncMediaFile {
  readonly type: string;
  readonly bytes: ArrayBuffer;
}

/**
 * The feature's pictures and sounds: which files a deck's cards refer to (by SHA-256, 64 hex
 * digits), and the store that keeps each file once. Sync sends and fetches the files (sealed);
 * only the feature reads a deck's shape or opens its store.
 */
export interface MediaAdapter {
  /** The files the deck's cards refer to. */
  referenced(deck: SyncDeck): readonly string[];
  has(hash: string): Promise<boolean>;
  get(hash: string): Promise<SyncMediaFile | undefined>;
  /** Keeps a file fetched for a card; its hash. Throws with words when the device is full. */
  put(bytes: ArrayBuffer, type: string): Promise<string>;
  /** Where the cards' media ask for a file this device lacks while they show a placeholder (null: nowhere). */
  setFetcher(fetch: ((hash: string) => Promise<boolean>) | null): void;
}

export interface SyncAdapters {
  decks: DecksAdapter;
  calendars: CalendarsAdapter;
  media: MediaAdapter;
}

let load: (() => Promise<SyncAdapters>) | null = null;
let loaded: Promise<SyncAdapters> | null = null;

/** RouterApp's hand-over: how to load the adapters (lazily, so no feature's code is pulled in early). */
export function provideSyncAdapters(loader: () => Promise<SyncAdapters>): void {
  load = loader;
  loaded = null;
}

/** The adapters RouterApp handed over; rejects when none were (a wiring mistake). */
export function syncAdapters(): Promise<SyncAdapters> {
  if (!load) return Promise.reject(new Error('Sync was not given the decks and calendars it carries.'));
  loaded ??= load().catch((error: unknown) => {
    // A chunk that failed to load (offline) is tried again next time.
    loaded = null;
    throw error;
  });
  return loaded;
}
