// The deterministic merge of two copies of a learner's data (this browser's and the vault's), per
// card and per field. Every deck is a document of its own: its metadata fields (name, languages,
// the rest) each hold one value with the hybrid-logical-clock stamp (hlc.ts) of the edit that set
// it, the later stamp wins; its cards are merged card by card and field by field. A card field
// holds versions ({value, stamp, base}: base is the stamp of the value the edit replaced) and the
// stamps known to be replaced ("gone": every version's base, and what the learner dismissed). The
// versions no other version replaced are concurrent edits (neither device saw the other's): the
// one with the later stamp is the field's value and the other texts stay on the card as its
// conflict note (`conflict`, shown by the flashcards editor until the learner dismisses it), so
// no text is lost and there is never a second deck. A field whose value is no text (`suspended`)
// shows its latest value: an edit of it replaces every version the editing device held. A card's position is one value (later stamp wins); cards are in
// position order, then by id.
// Deletions: a deleted card or deck keeps a tombstone {at, seen}, seen being the newest stamp the
// deleting device held for it. It stays deleted unless it holds a change stamped after `seen`: an
// edit the deleting device never saw (a concurrent edit, or one made after the deletion by a
// device that had not seen it) brings it back whole, so no text is lost; everything the deleting
// device had seen stays deleted. A deleted deck's content stays in the vault so that revival is
// whole. Review logs are united mark by mark, and of an item's two seeds (where its schedule
// starts before its marks) the one through the later mark wins; the daily cap and the calendar
// list are one value each, the later stamp wins. merge is commutative, associative and idempotent: every device that
// syncs through the vault ends with the same state. Decks and cards are the features' own
// (lib/syncAdapters.ts): the merge knows a deck's `id`, `cards` and `createdAt` and a card's `id`
// and `conflict`, and carries every other field as it is.
import type { SyncMark, SyncSeed } from '../lib/syncAdapters';
import { maxStamp, NO_STAMP, type Stamp } from './hlc';

/** One value of a card field: what it is, when it was set, and the stamp of the value it replaced. */
export interface Version {
  v: unknown;
  at: Stamp;
  base: Stamp;
}

/** A card field: its versions no edit replaced (latest first) and the stamps replaced (sorted). */
export interface FieldDoc {
  versions: readonly Version[];
  gone: readonly Stamp[];
}

/** One value with the stamp that set it: the later stamp wins. */
export interface Register {
  v: unknown;
  at: Stamp;
}

/** A deletion: when, and the newest stamp the deleting device held for what it deleted. */
export interface Deletion {
  at: Stamp;
  seen: Stamp;
}

export interface CardDoc {
  fields: Readonly<Record<string, FieldDoc>>;
  pos: Register;
  deleted?: Deletion;
}

export interface DeckDoc {
  meta: Readonly<Record<string, Register>>;
  cards: Readonly<Record<string, CardDoc>>;
  deleted?: Deletion;
}

/** One review mark as the review log stores it: item key, epoch ms, grade. */
export type Mark = SyncMark;

export interface DeckReviews {
  newPerDay: number;
  /** The stamp of the edit that set newPerDay ('' for never). */
  setAt: Stamp;
  /** Oldest first. */
  log: readonly Mark[];
  /** Seeds by item key; absent when there are none (so a vault without any reads and hashes as before seeds). */
  seeds?: Readonly<Record<string, SyncSeed>>;
  /** The deck's FSRS parameters and desired retention: one setting with newPerDay (same stamp), absent for the defaults. */
  params?: readonly number[];
  retention?: number;
}

/** `reviews` with the schedule settings `from` has (params, retention), each left out when absent. */
export const withScheduleSettings = <T extends object>(
  reviews: T,
  from: { params?: readonly number[]; retention?: number },
): T & Pick<DeckReviews, 'params' | 'retention'> => ({
  ...reviews,
  ...(from.params ? { params: from.params } : {}),
  ...(from.retention !== undefined ? { retention: from.retention } : {}),
});

/** Whether two records carry the same schedule settings. */
export const sameScheduleSettings = (a: { params?: readonly number[]; retention?: number }, b: { params?: readonly number[]; retention?: number }) =>
  canonical(a.params ?? null) === canonical(b.params ?? null) && a.retention === b.retention;

/** `reviews` (which has no seeds) with `seeds`, the field left out when there are none. */
export const withSeeds = <T extends object>(reviews: T, seeds: Readonly<Record<string, SyncSeed>> | undefined): T & Pick<DeckReviews, 'seeds'> =>
  seeds && Object.keys(seeds).length > 0 ? { ...reviews, seeds } : reviews;

/** The calendars feature's saved list, one value. */
export interface CalendarList {
  savedAt: Stamp;
  list: readonly unknown[];
}

export interface VaultState {
  decks: Readonly<Record<string, DeckDoc>>;
  reviews: Readonly<Record<string, DeckReviews>>;
  calendars: CalendarList;
}

/** The review log keeps this many marks per deck, dropping the oldest (as the review log does). */
export const MAX_MARKS = 20_000;

/** The card field sync writes the conflict note into (the flashcards card schema reads it). */
export const CONFLICT_FIELD = 'conflict';

export const emptyState = (): VaultState => ({ decks: {}, reviews: {}, calendars: { savedAt: NO_STAMP, list: [] } });

/** JSON with object keys sorted, so equal values give equal text whatever their key order. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  // JSON.stringify gives undefined for undefined and functions, whatever its type says.
  const text = JSON.stringify(value) as string | undefined;
  return text ?? 'null';
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Whether a value is text a conflict note can keep (a text, or a list of texts such as tags). */
export const isText = (value: unknown): value is string | readonly string[] =>
  typeof value === 'string' || (Array.isArray(value) && value.every((item) => typeof item === 'string'));

/** The later of two registers; at the same stamp (one edit) the larger value, so the order is total. */
export function mergeRegister(a: Register, b: Register): Register {
  if (a.at !== b.at) return a.at > b.at ? a : b;
  return canonical(a.v) >= canonical(b.v) ? a : b;
}

function sortedUnion(a: readonly Stamp[], b: readonly Stamp[]): Stamp[] {
  return [...new Set([...a, ...b])].sort(byText);
}

/**
 * A field from versions and gone stamps: the versions no base or dismissal replaced, latest
 * first. (A union filtered by a union: the merge is commutative, associative and idempotent.)
 */
export function normaliseField(versions: readonly Version[], gone: readonly Stamp[]): FieldDoc {
  const goneSet = new Set(gone);
  for (const version of versions) if (version.base !== NO_STAMP) goneSet.add(version.base);
  const byAt = new Map<Stamp, Version>();
  for (const version of versions) {
    if (goneSet.has(version.at)) continue;
    const known = byAt.get(version.at);
    byAt.set(version.at, known && canonical(known) >= canonical(version) ? known : version);
  }
  const live = [...byAt.values()].sort((x, y) => byText(y.at, x.at));
  return { versions: live, gone: [...goneSet].sort(byText) };
}

const sameVersion = (x: Version, y: Version | undefined) =>
  y !== undefined && x.at === y.at && x.base === y.base && (x.v === y.v || canonical(x.v) === canonical(y.v));

/** Two fields as normaliseField leaves them that hold the same (the common case: nothing changed). */
const sameField = (a: FieldDoc, b: FieldDoc) =>
  a.versions.length === b.versions.length &&
  a.gone.length === b.gone.length &&
  a.gone.every((stamp, i) => stamp === b.gone[i]) &&
  a.versions.every((version, i) => sameVersion(version, b.versions[i]));

export const mergeField = (a: FieldDoc, b: FieldDoc): FieldDoc =>
  a === b || sameField(a, b) ? a : normaliseField([...a.versions, ...b.versions], sortedUnion(a.gone, b.gone));

function mergeDeletion(a: Deletion | undefined, b: Deletion | undefined): Deletion | undefined {
  if (!a || !b) return a ?? b;
  return { at: maxStamp(a.at, b.at), seen: maxStamp(a.seen, b.seen) };
}

function mergeRecords<T>(a: Readonly<Record<string, T>>, b: Readonly<Record<string, T>>, join: (x: T, y: T) => T): Record<string, T> {
  const out: Record<string, T> = {};
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const x = a[key];
    const y = b[key];
    const value = x !== undefined && y !== undefined ? join(x, y) : (x ?? y);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

export function mergeCard(a: CardDoc, b: CardDoc): CardDoc {
  if (a === b) return a;
  const deleted = mergeDeletion(a.deleted, b.deleted);
  return { fields: mergeRecords(a.fields, b.fields, mergeField), pos: mergeRegister(a.pos, b.pos), ...(deleted ? { deleted } : {}) };
}

export function mergeDeck(a: DeckDoc, b: DeckDoc): DeckDoc {
  if (a === b) return a;
  const deleted = mergeDeletion(a.deleted, b.deleted);
  return { meta: mergeRecords(a.meta, b.meta, mergeRegister), cards: mergeRecords(a.cards, b.cards, mergeCard), ...(deleted ? { deleted } : {}) };
}

/** The newest stamp of a card's content (its values and position). */
export function cardStamp(card: CardDoc): Stamp {
  let newest = card.pos.at;
  for (const field of Object.values(card.fields)) for (const version of field.versions) newest = maxStamp(newest, version.at);
  return newest;
}

/** The newest stamp of a deck's content (metadata, cards, card deletions). */
export function deckStamp(deck: DeckDoc): Stamp {
  let newest = NO_STAMP;
  for (const register of Object.values(deck.meta)) newest = maxStamp(newest, register.at);
  for (const card of Object.values(deck.cards)) {
    newest = maxStamp(newest, cardStamp(card));
    if (card.deleted) newest = maxStamp(newest, card.deleted.at);
  }
  return newest;
}

/** Whether a card shows: never deleted, or changed after what its deletion saw. */
export const cardLive = (card: CardDoc) => !card.deleted || cardStamp(card) > card.deleted.seen;

/** Whether a deck shows: never deleted, or changed after what its deletion saw. */
export const deckLive = (deck: DeckDoc) => !deck.deleted || deckStamp(deck) > deck.deleted.seen;

const markId = (mark: Mark) => `${mark[1]}\u0000${mark[0]}\u0000${mark[2]}`;

/** Both logs' marks, each once, in time order; the oldest beyond MAX_MARKS are dropped. */
export function unionLogs(a: readonly Mark[], b: readonly Mark[]): Mark[] {
  const byId = new Map<string, Mark>();
  for (const mark of a) byId.set(markId(mark), mark);
  for (const mark of b) byId.set(markId(mark), mark);
  const ids = [...byId.keys()].sort((x, y) => {
    const dx = byId.get(x)?.[1] ?? 0;
    const dy = byId.get(y)?.[1] ?? 0;
    return dx !== dy ? dx - dy : x < y ? -1 : x > y ? 1 : 0;
  });
  const merged = ids.flatMap((id) => {
    const mark = byId.get(id);
    return mark ? [mark] : [];
  });
  return merged.length > MAX_MARKS ? merged.slice(merged.length - MAX_MARKS) : merged;
}

/** Each item's seed through the later mark (at the same mark the larger value, so the order is total). */
export function mergeSeeds(a: Readonly<Record<string, SyncSeed>> = {}, b: Readonly<Record<string, SyncSeed>> = {}): Record<string, SyncSeed> {
  const seeds: Record<string, SyncSeed> = { ...a };
  for (const [key, seed] of Object.entries(b)) {
    const other = seeds[key];
    if (!other || seed.through > other.through || (seed.through === other.through && canonical(seed.state) > canonical(other.state))) seeds[key] = seed;
  }
  return seeds;
}

function mergeReviews(a: DeckReviews, b: DeckReviews): DeckReviews {
  // The cap, parameters and retention are one setting: the later edit's, whole.
  const setting =
    a.setAt !== b.setAt
      ? a.setAt > b.setAt
        ? a
        : b
      : a.newPerDay !== b.newPerDay
        ? a.newPerDay > b.newPerDay
          ? a
          : b
        : canonical([a.params ?? null, a.retention ?? null]) >= canonical([b.params ?? null, b.retention ?? null])
          ? a
          : b;
  const merged = withScheduleSettings({ newPerDay: setting.newPerDay, setAt: setting.setAt, log: unionLogs(a.log, b.log) }, setting);
  return withSeeds(merged, mergeSeeds(a.seeds, b.seeds));
}

function mergeCalendars(a: CalendarList, b: CalendarList): CalendarList {
  if (a.savedAt !== b.savedAt) return a.savedAt > b.savedAt ? a : b;
  return canonical(a.list) >= canonical(b.list) ? a : b;
}

export function merge(a: VaultState, b: VaultState): VaultState {
  return {
    decks: mergeRecords(a.decks, b.decks, mergeDeck),
    // A deleted deck's log stays with its content, so a deck brought back has its reviews.
    reviews: mergeRecords(a.reviews, b.reviews, mergeReviews),
    calendars: mergeCalendars(a.calendars, b.calendars),
  };
}

/** The newest stamp anywhere in a state (what a device receives after reading it). */
export function stateStamp(state: VaultState): Stamp {
  let newest = state.calendars.savedAt;
  for (const deck of Object.values(state.decks)) {
    newest = maxStamp(newest, deckStamp(deck));
    if (deck.deleted) newest = maxStamp(newest, deck.deleted.at);
  }
  for (const reviews of Object.values(state.reviews)) newest = maxStamp(newest, reviews.setAt);
  return newest;
}

/** Whether two states hold the same data (for tests and to skip needless uploads). */
export const sameState = (a: VaultState, b: VaultState) => canonical(a) === canonical(b);
