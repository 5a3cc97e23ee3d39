// The review log of one deck, stored under reviews:{deckId}: every mark as it happened and the
// seeds of items whose schedule starts before their first logged mark (an import's memory state,
// marks the log dropped), which are the truth and what sync carries; and each item's FSRS state
// derived from them (kept, so the deck list never replays the log). The derivation is the one
// rule every device applies to the same synced data, so synced devices show the same schedule.
// A deck's own FSRS parameters and desired retention ("Optimise my schedule"), when set, are part
// of that rule: they travel with the log and every item is derived with them.
// Pure: records in, new records out; storage.ts reads and writes them.
import * as v from 'valibot';
import { isRecord, parseOrNull, record } from '../../lib/schema';
import { grade, parseItemState, parseParams, parseRetention, sameItemState, type Grade, type ItemState, type ScheduleSettings } from './schedule';

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

/**
 * Where an item's schedule starts before the marks the log holds for it: Anki's memory state of
 * an imported card, or what the marks the log dropped led to. `through` is the time of the last
 * mark it holds (0: none); the item's marks up to then are in it.
 */
export interface Seed {
  readonly through: number;
  readonly state: ItemState;
}

export interface ReviewRecord {
  /** How many never-practised items "Review due" introduces per day. */
  newPerDay: number;
  /** Seeds by item key (most decks have none). */
  seeds: Readonly<Record<string, Seed>>;
  /**
   * Each reviewed item's state, always `deriveItems(seeds, log)`: its seed's state (or a new
   * item's) graded with each of its marks after the seed's `through`, in log order. Items without
   * one were never reviewed.
   */
  items: Readonly<Record<string, ItemState>>;
  /** Every mark, oldest first (by time, then key, then grade: the order sync's merge gives), each once. */
  log: readonly ReviewEntry[];
  /** The deck's FSRS-6 parameters (21 numbers), absent for FSRS's defaults. */
  params?: readonly number[];
  /** The deck's desired retention (0.70 to 0.97), absent for 0.9. */
  retention?: number;
}

/** The stored shape: the record plus its type and version. */
export interface StoredReviews extends ReviewRecord {
  type: 'reviews';
  version: typeof REVIEWS_VERSION;
}

export function emptyReviews(newPerDay = DEFAULT_NEW_PER_DAY): ReviewRecord {
  return { newPerDay, seeds: {}, items: {}, log: [] };
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
  /** Absent from records written before seeds existed (see legacySeeds). */
  seeds: v.optional(v.unknown()),
  /** Absent until the deck's schedule is optimised or its retention set; unreadable reads as absent. */
  params: v.optional(v.unknown()),
  retention: v.optional(v.unknown()),
});

/** The record's schedule settings (what deriveItems and grade take). */
export const settingsOf = (reviews: Pick<ReviewRecord, 'params' | 'retention'>): ScheduleSettings => reviews;

/** `params` and `retention` as stored: each only when valid, so a record without them stays as it was. */
export function parseSettings(params: unknown, retention: unknown): Pick<ReviewRecord, 'params' | 'retention'> {
  const validParams = parseParams(params);
  const validRetention = parseRetention(retention);
  return { ...(validParams ? { params: validParams } : {}), ...(validRetention !== null ? { retention: validRetention } : {}) };
}

/** The order of the log: by time, then key, then grade (the same order as sync's union of logs). */
export function compareMarks(a: ReviewEntry, b: ReviewEntry): number {
  if (a[1] !== b[1]) return a[1] - b[1];
  if (a[0] !== b[0]) return a[0] < b[0] ? -1 : 1;
  return a[2] === b[2] ? 0 : a[2] < b[2] ? -1 : 1;
}

function parseEntry(value: unknown): ReviewEntry | null {
  if (!Array.isArray(value) || value.length !== 3) return null;
  const [key, at, mark] = value as unknown[];
  if (typeof key !== 'string' || key === '' || typeof at !== 'number' || !Number.isFinite(at)) return null;
  if (mark !== 'good' && mark !== 'again') return null;
  return [key, at, mark];
}

/**
 * Marks as stored: bad ones dropped, the rest in the log's order (compareMarks), each once;
 * anything but a list reads as none. (A hand-written loop: the deck list reads 10,000 of them.)
 */
export function parseLog(value: unknown): ReviewEntry[] {
  if (!Array.isArray(value)) return [];
  const log: ReviewEntry[] = [];
  let ordered = true;
  for (const raw of value as unknown[]) {
    const entry = parseEntry(raw);
    if (!entry) continue;
    const last = log[log.length - 1];
    if (last && compareMarks(last, entry) >= 0) ordered = false;
    log.push(entry);
  }
  return ordered ? log : inLogOrder(log);
}

/** Marks in the log's order, each once. */
export function inLogOrder(marks: readonly ReviewEntry[]): ReviewEntry[] {
  const sorted = [...marks].sort(compareMarks);
  return sorted.filter((mark, i) => i === 0 || compareMarks(sorted[i - 1] as ReviewEntry, mark) !== 0);
}

/** Seeds as stored or synced: those with a finite `through` and a readable state; anything else reads as none. */
export function parseSeeds(value: unknown): Record<string, Seed> {
  const seeds: Record<string, Seed> = {};
  if (!isRecord(value)) return seeds;
  for (const [key, raw] of Object.entries(value)) {
    if (key === '' || !isRecord(raw)) continue;
    const state = parseItemState(raw.state);
    if (state && typeof raw.through === 'number' && Number.isFinite(raw.through)) seeds[key] = { through: raw.through, state };
  }
  return seeds;
}

/**
 * Each item's state from the seeds and the log (only the keys in `only`, when given): its seed's
 * state, or a new item's, graded with each of its marks after the seed's `through`, in log order,
 * with the deck's parameters and retention (absent: the defaults). A pure function of these four.
 */
export function deriveItems(
  seeds: Readonly<Record<string, Seed>>,
  log: readonly ReviewEntry[],
  only?: ReadonlySet<string>,
  settings?: ScheduleSettings,
): Record<string, ItemState> {
  const items: Record<string, ItemState> = {};
  for (const [key, seed] of Object.entries(seeds)) if (!only || only.has(key)) items[key] = seed.state;
  for (const [key, at, mark] of log) {
    if (only && !only.has(key)) continue;
    const seed = seeds[key];
    if (seed && at <= seed.through) continue;
    items[key] = grade(items[key] ?? null, mark, at, settings);
  }
  return items;
}

/**
 * The seeds of a record written before seeds existed: each item whose stored state is not what
 * its marks lead to (an Anki import's memory state, marks the log dropped) seeds itself, through
 * its last mark. Its schedule stays as it is here, and now travels with the log.
 */
function legacySeeds(items: Readonly<Record<string, ItemState>>, log: readonly ReviewEntry[]): Record<string, Seed> {
  const replayed = deriveItems({}, log);
  const lastMark = new Map<string, number>();
  for (const [key, at] of log) lastMark.set(key, at);
  const seeds: Record<string, Seed> = {};
  for (const [key, state] of Object.entries(items)) {
    const marks = replayed[key];
    if (!marks || !sameItemState(marks, state)) seeds[key] = { through: lastMark.get(key) ?? 0, state };
  }
  return seeds;
}

/** Whether a stored record predates seeds (reading it works out its seeds once: worth writing back). */
export const predatesSeeds = (value: unknown): boolean => isRecord(value) && value.type === 'reviews' && !('seeds' in value);

/** The daily cap as stored: a valid cap, else the default. */
export const newPerDayOr = (value: unknown): number => parseNewPerDay(value) ?? DEFAULT_NEW_PER_DAY;

/**
 * A stored record's cap, seeds and marks, without the derived states (what sync carries), checked
 * as parseReviews checks them; null when it is not a version-1 review record.
 */
export function parseMarks(value: unknown): Pick<ReviewRecord, 'newPerDay' | 'seeds' | 'log' | 'params' | 'retention'> | null {
  if (predatesSeeds(value)) return parseReviews(value);
  const stored = parseOrNull(EnvelopeSchema, value);
  return (
    stored && {
      newPerDay: newPerDayOr(stored.newPerDay),
      seeds: parseSeeds(stored.seeds),
      log: parseLog(stored.log),
      ...parseSettings(stored.params, stored.retention),
    }
  );
}

/**
 * A stored record, validated: null when it is not a version-1 review record at all; otherwise bad
 * marks are dropped, the log is put in its order, a record from before seeds gets its seeds
 * (legacySeeds), an item whose stored state is missing or unreadable gets the state derived for
 * it, and a state of an item with neither a seed nor a mark is dropped.
 */
export function parseReviews(value: unknown): ReviewRecord | null {
  const stored = parseOrNull(EnvelopeSchema, value);
  if (!stored) return null;
  const log = parseLog(stored.log);
  const stateOf: Record<string, ItemState> = {};
  for (const [key, raw] of Object.entries(stored.items)) {
    const state = parseItemState(raw);
    if (state) stateOf[key] = state;
  }
  const settings = parseSettings(stored.params, stored.retention);
  const seeds = stored.seeds === undefined ? legacySeeds(stateOf, log) : parseSeeds(stored.seeds);
  const items: Record<string, ItemState> = {};
  const missing = new Set<string>();
  const keep = (key: string) => {
    const state = stateOf[key];
    if (state) items[key] = state;
    else missing.add(key);
  };
  for (const key of Object.keys(seeds)) keep(key);
  for (const [key] of log) if (!(key in items)) keep(key);
  Object.assign(items, deriveItems(seeds, log, missing, settings));
  return { newPerDay: newPerDayOr(stored.newPerDay), seeds, items, log, ...settings };
}

/** The stored shape; `params` and `retention` only when set, so a record without them is stored byte for byte as before. */
export function toStored(reviews: ReviewRecord): StoredReviews {
  return {
    type: 'reviews',
    version: REVIEWS_VERSION,
    newPerDay: reviews.newPerDay,
    seeds: reviews.seeds,
    items: reviews.items,
    log: reviews.log,
    ...(reviews.params ? { params: reviews.params } : {}),
    ...(reviews.retention !== undefined ? { retention: reviews.retention } : {}),
  };
}

/**
 * The record after marking `key` at `at`: the mark logged and the item rescheduled. The mark goes
 * after every mark logged (a clock set back must not put the log out of order, and no two marks
 * share a time), so it is its item's last and the item's state is the old one graded. Beyond
 * `cap` marks the oldest are folded into their items' seeds, so no schedule changes.
 */
export function recordMark(reviews: ReviewRecord, key: string, mark: Grade, at: number, cap = MAX_LOG_ENTRIES): ReviewRecord {
  const last = reviews.log[reviews.log.length - 1];
  const time = last && last[1] >= at ? last[1] + 1 : at;
  const log = [...reviews.log, [key, time, mark] as const];
  const seed = reviews.seeds[key];
  // A seed holding marks after this one (only from a clock far ahead) holds this one too.
  const state = seed && time <= seed.through ? (reviews.items[key] ?? seed.state) : grade(reviews.items[key] ?? null, mark, time, reviews);
  const next = { ...reviews, items: { ...reviews.items, [key]: state }, log };
  return log.length > cap ? foldOldest(next, log.length - cap) : next;
}

/** The record without its oldest `count` marks, each folded into its item's seed. */
function foldOldest(reviews: ReviewRecord, count: number): ReviewRecord {
  const dropped = reviews.log.slice(0, count);
  const lastDropped = new Map<string, number>();
  for (const [key, at] of dropped) lastDropped.set(key, at);
  const folded = deriveItems(reviews.seeds, dropped, new Set(lastDropped.keys()), reviews);
  const seeds = { ...reviews.seeds };
  for (const [key, at] of lastDropped) {
    const state = folded[key];
    if (state) seeds[key] = { through: Math.max(at, seeds[key]?.through ?? 0), state };
  }
  return { ...reviews, seeds, log: reviews.log.slice(count) };
}

/**
 * The record with the last mark of `key` taken back: the mark leaves the log and the item gets
 * the state derived without it (never reviewed again when it has no seed and no mark remains).
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
  const state = deriveItems(reviews.seeds, log, new Set([key]), reviews)[key];
  const items = state ? { ...reviews.items, [key]: state } : Object.fromEntries(Object.entries(reviews.items).filter(([other]) => other !== key));
  return { ...reviews, items, log };
}

export function withNewPerDay(reviews: ReviewRecord, newPerDay: number): ReviewRecord {
  return { ...reviews, newPerDay };
}

/**
 * The record with the deck's parameters and retention set (undefined: back to the default), every
 * item derived again with them (seeds stay as they are: their states are the truth).
 */
export function withSettings(reviews: ReviewRecord, params: readonly number[] | undefined, retention: number | undefined): ReviewRecord {
  const settings = { ...(params ? { params: [...params] } : {}), ...(retention !== undefined ? { retention } : {}) };
  const items = deriveItems(reviews.seeds, reviews.log, undefined, settings);
  return { newPerDay: reviews.newPerDay, seeds: reviews.seeds, items, log: reviews.log, ...settings };
}

/** True when nothing was ever marked (and no cap set apart from the default is worth keeping). */
export const isEmptyReviews = (reviews: ReviewRecord) =>
  reviews.log.length === 0 &&
  Object.keys(reviews.items).length === 0 &&
  Object.keys(reviews.seeds).length === 0 &&
  reviews.newPerDay === DEFAULT_NEW_PER_DAY &&
  reviews.params === undefined &&
  reviews.retention === undefined;
