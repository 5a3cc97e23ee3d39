// What is due: per item key of a deck (both directions for a bidirectional deck), from the
// review log's states and a clock the caller passes. Never-practised items count as due; the
// "Review due" session takes the due reviews and, per day, at most the deck's cap of new items.
import { practiceItems } from '../practice';
import type { Deck } from '../deck';
import { addDays, startOfDay } from './days';
import type { ReviewRecord } from './reviewLog';
import { dueAt } from './schedule';

/**
 * The keys practice uses for a deck (or its cards with `tag`): complete cards that are not
 * suspended, each twice when bidirectional, a cloze card once per cloze number.
 */
export function deckKeys(deck: Pick<Deck, 'cards' | 'bidirectional'>, tag?: string): string[] {
  return practiceItems(deck, tag).map((item) => item.key);
}

/** "N due": items never reviewed or whose due time has come. */
export function dueCount(keys: readonly string[], reviews: ReviewRecord, now: number): number {
  let count = 0;
  for (const key of keys) {
    const state = reviews.items[key];
    if (!state || dueAt(state) <= now) count += 1;
  }
  return count;
}

/** How many items had their first ever mark today (they used up today's new-card allowance). */
export function newSeenToday(reviews: ReviewRecord, now: number): number {
  const today = startOfDay(now);
  const before = new Set<string>();
  const todays = new Set<string>();
  for (const [key, at] of reviews.log) {
    if (at < today) before.add(key);
    else if (!before.has(key)) todays.add(key);
  }
  return todays.size;
}

/**
 * The items of a "Review due" session: every reviewed item whose time has come (most overdue
 * first), then never-practised items in deck order up to what is left of today's cap.
 */
export function reviewDueKeys(keys: readonly string[], reviews: ReviewRecord, now: number): string[] {
  const due: [string, number][] = [];
  const fresh: string[] = [];
  for (const key of keys) {
    const state = reviews.items[key];
    if (!state) fresh.push(key);
    else if (dueAt(state) <= now) due.push([key, dueAt(state)]);
  }
  due.sort((a, b) => a[1] - b[1]);
  const allowance = Math.max(0, reviews.newPerDay - newSeenToday(reviews, now));
  return [...due.map(([key]) => key), ...fresh.slice(0, allowance)];
}

/** "Review due (N)": the size of that session. */
export function reviewDueCount(keys: readonly string[], reviews: ReviewRecord, now: number): number {
  let count = 0;
  let fresh = 0;
  for (const key of keys) {
    const state = reviews.items[key];
    if (!state) fresh += 1;
    else if (dueAt(state) <= now) count += 1;
  }
  if (fresh === 0) return count;
  return count + Math.min(fresh, Math.max(0, reviews.newPerDay - newSeenToday(reviews, now)));
}

/**
 * When "Review due" next has something: `now` when it has already, else the earliest due time of
 * a reviewed item or, for new items held back by the cap (or a cap of 0 with none reviewed), the
 * next midnight when a cap allows them. null when nothing will ever be due (no items, or only new
 * ones with a cap of 0).
 */
export function nextDue(keys: readonly string[], reviews: ReviewRecord, now: number): number | null {
  let earliest = Number.POSITIVE_INFINITY;
  let fresh = 0;
  for (const key of keys) {
    const state = reviews.items[key];
    if (!state) fresh += 1;
    else earliest = Math.min(earliest, dueAt(state));
  }
  if (earliest <= now) return now;
  if (fresh > 0 && reviews.newPerDay > 0) {
    if (reviews.newPerDay > newSeenToday(reviews, now)) return now;
    earliest = Math.min(earliest, addDays(now, 1));
  }
  return Number.isFinite(earliest) ? earliest : null;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** The completion screen's words for nextDue's answer, e.g. 'in 10 minutes', 'tomorrow'. */
export function describeNextDue(at: number | null, now: number): string {
  if (at === null) return 'Nothing in this deck is scheduled: every card is new and the daily limit for new cards is 0.';
  if (at <= now) return 'Cards of this deck are due now.';
  const wait = at - now;
  const plural = (count: number, unit: string) => `${count} ${unit}${count === 1 ? '' : 's'}`;
  if (wait < HOUR) return `This deck is next due in ${plural(Math.max(1, Math.round(wait / MINUTE)), 'minute')}.`;
  if (wait < 12 * HOUR) return `This deck is next due in ${plural(Math.round(wait / HOUR), 'hour')}.`;
  const days = Math.round((startOfDay(at) - startOfDay(now)) / (24 * HOUR));
  const date = new Date(at).toLocaleDateString(undefined, { weekday: 'long', day: 'numeric', month: 'long' });
  if (days <= 0) return `This deck is next due later today, ${new Date(at).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })}.`;
  if (days === 1) return `This deck is next due tomorrow, ${date}.`;
  return `This deck is next due in ${plural(days, 'day')}, on ${date}.`;
}
