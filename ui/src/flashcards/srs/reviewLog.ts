// The review log of one deck, stored under reviews:{deckId}: every mark as it happened (the
// truth), and each item's FSRS state derived from it (so the deck list never replays the log).
// Pure: records in, new records out; storage.ts reads and writes them.
import * as v from 'valibot';
import { parseOrNull, record } from '../../lib/schema';
import { grade, parseItemState, replay, type Grade, type ItemState } from './schedule';

export const REVIEWS_VERSION = 1;
export const DEFAULT_NEW_PER_DAY = 20;
/** The largest daily new-card cap the setting accepts. */
export const MAX_NEW_PER_DAY = 9999;
/**
 * The log keeps at most this many marks per deck, dropping the oldest: the derived states keep
 * the schedule of every item, and the statistics look back 12 weeks at most. About 1 MB of JSON.
 */
export const MAX_LOG_ENTRIES = 20_000;

/** One mark: the item key (card id, with ':reverse' for TGT→SRC), when (epoch ms), the grade. */
export type ReviewEntry = readonly [key: string, at: number, grade: Grade];

export interface ReviewRecord {
  /** How many never-practised items "Review due" introduces per day. */
  newPerDay: number;
  /** Each reviewed item's state; items without one were never reviewed. */
  items: Readonly<Record<string, ItemState>>;
  /** Every mark, oldest first. */
  log: readonly ReviewEntry[];
}

/** The stored shape: the record plus its type and version. */
export interface StoredReviews extends ReviewRecord {
  type: 'reviews';
  version: typeof REVIEWS_VERSION;
}

export function emptyReviews(newPerDay = DEFAULT_NEW_PER_DAY): ReviewRecord {
  return { newPerDay, items: {}, log: [] };
}

/** A cap as the setting accepts it: a whole number from 0 to MAX_NEW_PER_DAY, else null. */
export function parseNewPerDay(value: unknown): number | null {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof number === 'number' && Number.isInteger(number) && number >= 0 && number <= MAX_NEW_PER_DAY ? number : null;
}

const EnvelopeSchema = record({
  type: v.literal('reviews'),
  version: v.literal(REVIEWS_VERSION),
  newPerDay: v.fallback(
    v.custom<number>((value) => parseNewPerDay(value) !== null),
    DEFAULT_NEW_PER_DAY,
  ),
  items: v.fallback(v.record(v.string(), v.unknown()), () => ({})),
  log: v.fallback(v.array(v.unknown()), () => []),
});

function parseEntry(value: unknown): ReviewEntry | null {
  if (!Array.isArray(value) || value.length !== 3) return null;
  const [key, at, mark] = value as unknown[];
  if (typeof key !== 'string' || key === '' || typeof at !== 'number' || !Number.isFinite(at)) return null;
  if (mark !== 'good' && mark !== 'again') return null;
  return [key, at, mark];
}

/**
 * Marks as stored: bad ones dropped, the rest in time order; anything but a list reads as none.
 * (A hand-written loop: the deck list reads 10,000 of them.)
 */
export function parseLog(value: unknown): ReviewEntry[] {
  if (!Array.isArray(value)) return [];
  const log: ReviewEntry[] = [];
  let sorted = true;
  for (const raw of value as unknown[]) {
    const entry = parseEntry(raw);
    if (!entry) continue;
    const last = log[log.length - 1];
    if (last && last[1] > entry[1]) sorted = false;
    log.push(entry);
  }
  if (!sorted) log.sort((a, b) => a[1] - b[1]);
  return log;
}

/** The daily cap as stored: a valid cap, else the default. */
export const newPerDayOr = (value: unknown): number => parseNewPerDay(value) ?? DEFAULT_NEW_PER_DAY;

/**
 * A stored record's cap and marks only, without the derived states (what sync carries), checked
 * as parseReviews checks them; null when it is not a version-1 review record.
 */
export function parseMarks(value: unknown): Pick<ReviewRecord, 'newPerDay' | 'log'> | null {
  const stored = parseOrNull(EnvelopeSchema, value);
  return stored && { newPerDay: newPerDayOr(stored.newPerDay), log: parseLog(stored.log) };
}

/**
 * A stored record, validated: null when it is not a version-1 review record at all; otherwise bad
 * marks are dropped, the log is put in time order, and an item whose stored state is missing or
 * unreadable gets the state its marks lead to.
 */
export function parseReviews(value: unknown): ReviewRecord | null {
  const stored = parseOrNull(EnvelopeSchema, value);
  if (!stored) return null;
  const log = parseLog(stored.log);
  const items: Record<string, ItemState> = {};
  for (const [key, raw] of Object.entries(stored.items)) {
    const state = parseItemState(raw);
    if (state) items[key] = state;
  }
  const missing = new Set<string>();
  for (const [key] of log) if (!(key in items)) missing.add(key);
  for (const key of missing) {
    const state = replayKey(log, key);
    if (state) items[key] = state;
  }
  return { newPerDay: newPerDayOr(stored.newPerDay), items, log };
}

export function toStored(reviews: ReviewRecord): StoredReviews {
  return { type: 'reviews', version: REVIEWS_VERSION, newPerDay: reviews.newPerDay, items: reviews.items, log: reviews.log };
}

function replayKey(log: readonly ReviewEntry[], key: string): ItemState | null {
  const marks: { at: number; grade: Grade }[] = [];
  for (const [k, at, mark] of log) if (k === key) marks.push({ at, grade: mark });
  return replay(marks);
}

/** The record after marking `key` at `at`: the mark logged and the item rescheduled. */
export function recordMark(reviews: ReviewRecord, key: string, mark: Grade, at: number): ReviewRecord {
  const last = reviews.log[reviews.log.length - 1];
  // A clock set back must not put the log out of order.
  const time = last && last[1] > at ? last[1] : at;
  const log = [...reviews.log, [key, time, mark] as const];
  if (log.length > MAX_LOG_ENTRIES) log.splice(0, log.length - MAX_LOG_ENTRIES);
  return {
    ...reviews,
    items: { ...reviews.items, [key]: grade(reviews.items[key] ?? null, mark, time) },
    log,
  };
}

/**
 * The record with the last mark of `key` taken back: the mark leaves the log and the item gets
 * the state its remaining marks lead to (never reviewed again when none remain). Should the
 * oldest marks have been dropped (MAX_LOG_ENTRIES), the replay starts from the oldest kept.
 */
export function undoMark(reviews: ReviewRecord, key: string): ReviewRecord {
  let index = -1;
  for (let i = reviews.log.length - 1; i >= 0; i -= 1) {
    if (reviews.log[i]?.[0] === key) {
      index = i;
      break;
    }
  }
  if (index < 0) return reviews;
  const log = [...reviews.log.slice(0, index), ...reviews.log.slice(index + 1)];
  const state = replayKey(log, key);
  const items = state ? { ...reviews.items, [key]: state } : Object.fromEntries(Object.entries(reviews.items).filter(([other]) => other !== key));
  return { ...reviews, items, log };
}

export function withNewPerDay(reviews: ReviewRecord, newPerDay: number): ReviewRecord {
  return { ...reviews, newPerDay };
}

/** True when nothing was ever marked (and no cap set apart from the default is worth keeping). */
export const isEmptyReviews = (reviews: ReviewRecord) =>
  reviews.log.length === 0 && Object.keys(reviews.items).length === 0 && reviews.newPerDay === DEFAULT_NEW_PER_DAY;
