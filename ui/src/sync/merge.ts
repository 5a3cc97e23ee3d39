// The deterministic merge of two copies of a learner's data (this browser's and the vault's).
// Per deck the later save wins; a deletion is a tombstone that wins over the versions it saw; a
// version that the winner never saw (a concurrent edit) is kept as a copy named '(conflict copy)',
// so no card is ever lost; review logs are united mark by mark; the calendar list is one value,
// the later one wins. merge(a, b) = merge(b, a), merge(a, a) = a, merge(merge(a, b), b) =
// merge(a, b): every device that syncs through the vault ends with the same state. Decks and
// marks are the features' own (lib/syncAdapters.ts): the merge reads a deck's id, name and
// createdAt, and carries the rest.
import type { SyncDeck, SyncMark } from '../lib/syncAdapters';

/** A saved deck as its feature stores it; `deck.createdAt` is the ISO form of `savedAt`. */
export interface LiveEntry {
  savedAt: number;
  /** The savedAt of the version this one was edited from (0 for a new deck). */
  baseAt: number;
  deck: SyncDeck;
}

export interface Tombstone {
  savedAt: number;
  baseAt: number;
  deleted: true;
}

export type DeckEntry = LiveEntry | Tombstone;

/** One review mark as the review log stores it: item key, epoch ms, grade. */
export type Mark = SyncMark;

export interface DeckReviews {
  newPerDay: number;
  /** When newPerDay was last changed (epoch ms). */
  setAt: number;
  /** Oldest first. */
  log: readonly Mark[];
}

/** The calendars feature's saved list, one value. */
export interface CalendarList {
  savedAt: number;
  list: readonly unknown[];
}

export interface VaultState {
  decks: Readonly<Record<string, DeckEntry>>;
  reviews: Readonly<Record<string, DeckReviews>>;
  calendars: CalendarList;
}

/** The review log keeps this many marks per deck, dropping the oldest (as the review log does). */
export const MAX_MARKS = 20_000;
export const CONFLICT_SUFFIX = ' (conflict copy)';

export const emptyState = (): VaultState => ({ decks: {}, reviews: {}, calendars: { savedAt: 0, list: [] } });

export const isLive = (entry: DeckEntry): entry is LiveEntry => !('deleted' in entry);

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

/** What a deck says, leaving out when it was saved. */
function content(entry: LiveEntry): string {
  return canonical(Object.fromEntries(Object.entries(entry.deck).filter(([key]) => key !== 'createdAt')));
}

const entryText = (entry: DeckEntry) => (isLive(entry) ? `1${canonical(entry.deck)}` : '0');

/** A total order: later save, then a deletion over a save at the same time, then the text. */
function compareEntries(a: DeckEntry, b: DeckEntry): number {
  if (a.savedAt !== b.savedAt) return a.savedAt - b.savedAt;
  const deletedA = isLive(a) ? 0 : 1;
  const deletedB = isLive(b) ? 0 : 1;
  if (deletedA !== deletedB) return deletedA - deletedB;
  const ta = entryText(a);
  const tb = entryText(b);
  if (ta !== tb) return ta < tb ? -1 : 1;
  return a.baseAt - b.baseAt;
}

/** The id of the copy that keeps `loser` of deck `id`: the same on every device. */
export const conflictId = (id: string, loser: LiveEntry) => `${id}-conflict-${loser.savedAt.toString(36)}`;

function conflictCopy(id: string, loser: LiveEntry): [string, LiveEntry] {
  const copyId = conflictId(id, loser);
  const name = loser.deck.name;
  const named = name.endsWith(CONFLICT_SUFFIX) ? name : `${name}${CONFLICT_SUFFIX}`;
  return [copyId, { savedAt: loser.savedAt, baseAt: loser.savedAt, deck: { ...loser.deck, id: copyId, name: named } }];
}

/** The winner of two entries of one deck, and the copy of the loser when the winner never saw it. */
function mergeEntry(id: string, a: DeckEntry, b: DeckEntry): { winner: DeckEntry; copy: [string, LiveEntry] | null } {
  const order = compareEntries(a, b);
  if (order === 0) return { winner: a, copy: null };
  const [winner, loser] = order > 0 ? [a, b] : [b, a];
  if (!isLive(loser) || winner.baseAt >= loser.savedAt) return { winner, copy: null };
  const differs = !isLive(winner) || content(winner) !== content(loser);
  return { winner, copy: differs ? conflictCopy(id, loser) : null };
}

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

function mergeReviews(a: DeckReviews | undefined, b: DeckReviews | undefined): DeckReviews | undefined {
  if (!a || !b) return a ?? b;
  const setting = a.setAt !== b.setAt ? (a.setAt > b.setAt ? a : b) : a.newPerDay >= b.newPerDay ? a : b;
  return { newPerDay: setting.newPerDay, setAt: setting.setAt, log: unionLogs(a.log, b.log) };
}

function mergeCalendars(a: CalendarList, b: CalendarList): CalendarList {
  if (a.savedAt !== b.savedAt) return a.savedAt > b.savedAt ? a : b;
  return canonical(a.list) >= canonical(b.list) ? a : b;
}

export function merge(a: VaultState, b: VaultState): VaultState {
  const decks: Record<string, DeckEntry> = {};
  const copies: [string, LiveEntry][] = [];
  for (const id of new Set([...Object.keys(a.decks), ...Object.keys(b.decks)])) {
    const ea = a.decks[id];
    const eb = b.decks[id];
    if (!ea || !eb) {
      const only = ea ?? eb;
      if (only) decks[id] = only;
      continue;
    }
    const { winner, copy } = mergeEntry(id, ea, eb);
    decks[id] = winner;
    if (copy) copies.push(copy);
  }
  // A copy is a deck like any other: one already there (perhaps edited since) meets it by the same rule.
  copies.sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
  for (const [copyId, copy] of copies) {
    const existing = decks[copyId];
    decks[copyId] = existing ? mergeEntry(copyId, existing, copy).winner : copy;
  }
  const reviews: Record<string, DeckReviews> = {};
  for (const id of new Set([...Object.keys(a.reviews), ...Object.keys(b.reviews)])) {
    const entry = decks[id];
    // The reviews of a deleted deck go with it.
    if (entry && !isLive(entry)) continue;
    const merged = mergeReviews(a.reviews[id], b.reviews[id]);
    if (merged) reviews[id] = merged;
  }
  return { decks, reviews, calendars: mergeCalendars(a.calendars, b.calendars) };
}

/** Whether two states hold the same data (for tests and to skip needless uploads). */
export const sameState = (a: VaultState, b: VaultState) => canonical(a) === canonical(b);
