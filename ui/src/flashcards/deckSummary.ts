// A deck as the deck list needs it, kept beside the deck under deck:summary:{id} so the list reads
// a few hundred small records instead of every card and review log (issue 26: 300 decks of 20,000
// cards). Pure: summarize() builds one from a deck and its review log; dueCountsAt() gives the
// "N due" and "Review due (N)" counts at any later moment from the due times it keeps, the same
// numbers srs/due.ts gives from the whole deck. A stored summary names the lengths of the deck's
// and the log's stored texts it was made from: storage.ts rebuilds it when they differ (a writer
// that did not know of summaries, e.g. an older version of the app in another tab).
import type { Deck } from './deck';
import { deckTags } from './tags';
import { startOfDay } from './srs/days';
import { deckKeys } from './srs/due';
import { practiceCount, type PracticeCount } from './practice';
import type { ReviewRecord } from './srs/reviewLog';
import { dueAt } from './srs/schedule';

/** 2: with the practice count (summaries of version 1 are rebuilt). */
export const SUMMARY_VERSION = 2;

export interface DueCounts {
  /** "N due". */
  due: number;
  /** "Review due (N)". */
  reviewDue: number;
}

/** Due times kept in a summary: enough for days of visits, few enough to stay small. */
export const KEPT_TIMES = 16;

/**
 * What the due counts follow from, without the cards; made at `at`. Small whatever the deck's
 * size: the counts it gives hold until the last kept due time when more follow it.
 */
export interface DueSchedule {
  newPerDay: number;
  /** When it was made (epoch ms) and that day's local midnight. */
  at: number;
  from: number;
  /** Items of the deck never reviewed. */
  fresh: number;
  /** Reviewed items due by `at`. */
  dueBy: number;
  /** The next due times after `at`, ascending, at most KEPT_TIMES. */
  times: number[];
  /** Reviewed items due after the last of `times`. */
  later: number;
  /** Keys whose first-ever mark is on the day `from` or after (today's new cards). */
  newSeen: number;
  /** First-ever marks after `at` (a clock that was ahead), ascending. */
  marksAfter: number[];
}

export interface DeckSummary {
  id: string;
  name: string;
  author: string;
  description: string;
  sourceLang: string;
  targetLang: string;
  createdAt: string;
  /** Cards in the deck (the "N cards" pill). */
  cardCount: number;
  /** What practice counts, said beside the pill when it differs (practice.ts practiceCountText). */
  practice: PracticeCount;
  /** The cards' tags, each once, sorted as deckTags sorts them. */
  tags: string[];
  schedule: DueSchedule;
}

/** The stored record: the summary and the stored texts' lengths it was made from (-1: absent). */
export interface StoredSummary extends Omit<DeckSummary, 'id'> {
  type: 'deck-summary';
  version: typeof SUMMARY_VERSION;
  deckLength: number;
  reviewsLength: number;
}

export function dueSchedule(deck: Pick<Deck, 'cards' | 'bidirectional'>, reviews: ReviewRecord, now: number): DueSchedule {
  const upcoming: number[] = [];
  let fresh = 0;
  let dueBy = 0;
  for (const key of deckKeys(deck)) {
    const state = reviews.items[key];
    if (!state) fresh += 1;
    else if (dueAt(state) <= now) dueBy += 1;
    else upcoming.push(dueAt(state));
  }
  upcoming.sort((a, b) => a - b);
  const times = upcoming.slice(0, KEPT_TIMES);
  const from = startOfDay(now);
  const seen = new Set<string>();
  let newSeen = 0;
  const marksAfter: number[] = [];
  // The log is oldest first, so a key's first mark is the first one met.
  for (const [key, at] of reviews.log) {
    if (seen.has(key)) continue;
    seen.add(key);
    if (at >= from) newSeen += 1;
    if (at > now) marksAfter.push(at);
  }
  return { newPerDay: reviews.newPerDay, at: now, from, fresh, dueBy, times, later: upcoming.length - times.length, newSeen, marksAfter };
}

export function summarize(deck: Deck, reviews: ReviewRecord, now: number): DeckSummary {
  return {
    id: deck.id,
    name: deck.name,
    author: deck.author,
    description: deck.description,
    sourceLang: deck.sourceLang,
    targetLang: deck.targetLang,
    createdAt: deck.createdAt,
    cardCount: deck.cards.length,
    practice: practiceCount(deck),
    tags: deckTags(deck.cards),
    schedule: dueSchedule(deck, reviews, now),
  };
}

/** How many of the ascending `values` are at most `limit`. */
function countUpTo(values: readonly number[], limit: number): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((values[mid] ?? Number.POSITIVE_INFINITY) <= limit) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * The counts at `now`, as dueCount and reviewDueCount give them; null when the schedule cannot
 * tell: before it was made (a clock set back) or once due times it did not keep may have come.
 */
export function dueCountsAt(schedule: DueSchedule, now: number): DueCounts | null {
  if (now < schedule.at) return null;
  const last = schedule.times[schedule.times.length - 1];
  if (schedule.later > 0 && (last === undefined || now >= last)) return null;
  const reviewed = schedule.dueBy + countUpTo(schedule.times, now);
  const today = startOfDay(now);
  const newSeen = today === schedule.from ? schedule.newSeen : schedule.marksAfter.filter((at) => at >= today).length;
  const allowance = Math.max(0, schedule.newPerDay - newSeen);
  return { due: schedule.fresh + reviewed, reviewDue: reviewed + Math.min(schedule.fresh, allowance) };
}

const isString = (value: unknown): value is string => typeof value === 'string';
const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0;
const isTimes = (value: unknown): value is number[] =>
  Array.isArray(value) &&
  (value as unknown[]).every((time, i, all) => typeof time === 'number' && Number.isFinite(time) && (i === 0 || (all[i - 1] as number) <= time));

/** A stored summary as written by toStoredSummary, or null for anything else. */
export function parseSummary(value: unknown, id: string): (DeckSummary & { deckLength: number; reviewsLength: number }) | null {
  if (typeof value !== 'object' || value === null) return null;
  const stored = value as Partial<Record<keyof StoredSummary, unknown>>;
  const schedule = stored.schedule as Partial<Record<keyof DueSchedule, unknown>> | null | undefined;
  if (stored.type !== 'deck-summary' || stored.version !== SUMMARY_VERSION) return null;
  if (![stored.name, stored.author, stored.description, stored.sourceLang, stored.targetLang, stored.createdAt].every(isString)) return null;
  if (!isCount(stored.cardCount) || !Array.isArray(stored.tags) || !(stored.tags as unknown[]).every(isString)) return null;
  if (typeof stored.deckLength !== 'number' || typeof stored.reviewsLength !== 'number') return null;
  const practice = stored.practice as Partial<Record<keyof PracticeCount, unknown>> | null | undefined;
  if (typeof practice !== 'object' || practice === null || typeof practice.bothWays !== 'boolean') return null;
  if (![practice.items, practice.multiGap, practice.gaps, practice.suspended, practice.incomplete].every(isCount)) return null;
  if (typeof schedule !== 'object' || schedule === null) return null;
  if (![schedule.newPerDay, schedule.fresh, schedule.dueBy, schedule.later, schedule.newSeen].every(isCount)) return null;
  if (typeof schedule.at !== 'number' || typeof schedule.from !== 'number') return null;
  if (!isTimes(schedule.times) || !isTimes(schedule.marksAfter)) return null;
  return {
    id,
    name: stored.name as string,
    author: stored.author as string,
    description: stored.description as string,
    sourceLang: stored.sourceLang as string,
    targetLang: stored.targetLang as string,
    createdAt: stored.createdAt as string,
    cardCount: stored.cardCount,
    practice: {
      items: practice.items as number,
      multiGap: practice.multiGap as number,
      gaps: practice.gaps as number,
      suspended: practice.suspended as number,
      incomplete: practice.incomplete as number,
      bothWays: practice.bothWays,
    },
    tags: stored.tags as string[],
    schedule: {
      newPerDay: schedule.newPerDay as number,
      at: schedule.at,
      from: schedule.from,
      fresh: schedule.fresh as number,
      dueBy: schedule.dueBy as number,
      times: schedule.times,
      later: schedule.later as number,
      newSeen: schedule.newSeen as number,
      marksAfter: schedule.marksAfter,
    },
    deckLength: stored.deckLength,
    reviewsLength: stored.reviewsLength,
  };
}

export function toStoredSummary(summary: DeckSummary, deckLength: number, reviewsLength: number): StoredSummary {
  return {
    type: 'deck-summary',
    version: SUMMARY_VERSION,
    name: summary.name,
    author: summary.author,
    description: summary.description,
    sourceLang: summary.sourceLang,
    targetLang: summary.targetLang,
    createdAt: summary.createdAt,
    cardCount: summary.cardCount,
    practice: summary.practice,
    tags: summary.tags,
    schedule: summary.schedule,
    deckLength,
    reviewsLength,
  };
}
