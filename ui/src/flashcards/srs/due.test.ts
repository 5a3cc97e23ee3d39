// Due counting and the "Review due" selection on an injected clock, with the daily new-card cap.
import { describe, expect, it } from 'vitest';
import { defaultMeta, emptyCard, normaliseForSave } from '../deck';
import { addDays } from './days';
import { deckKeys, describeNextDue, dueCount, newSeenToday, nextDue, reviewDueCount, reviewDueKeys } from './due';
import { emptyReviews, recordMark, withNewPerDay, type ReviewRecord } from './reviewLog';

const MINUTE = 60_000;
// Local times, so day boundaries hold in any time zone the tests run in.
const T0 = new Date(2026, 0, 5, 9, 0, 0).getTime();

const deck = (count: number, bidirectional = false) =>
  normaliseForSave(
    'd',
    { ...defaultMeta(), name: 'D', bidirectional },
    [...Array.from({ length: count }, (_, i) => ({ ...emptyCard(`c${i}`), front: `f${i}`, back: `b${i}` })), { ...emptyCard('blank'), front: 'only front' }],
    new Date(T0),
  );

const markAll = (keys: readonly string[], reviews: ReviewRecord, at: number, grade: 'good' | 'again' = 'good') =>
  keys.reduce((log, key, i) => recordMark(log, key, grade, at + i), reviews);

describe('due', () => {
  it('uses complete cards, each direction of a bidirectional deck as its own item', () => {
    expect(deckKeys(deck(2))).toEqual(['c0', 'c1']);
    expect(deckKeys(deck(2, true))).toEqual(['c0', 'c0:reverse', 'c1', 'c1:reverse']);
  });

  it('counts never-practised cards as due and none after every card was marked Knew it', () => {
    const keys = deckKeys(deck(3, true));
    expect(dueCount(keys, emptyReviews(), T0)).toBe(6);
    const after = markAll(keys, emptyReviews(), T0);
    expect(dueCount(keys, after, T0 + MINUTE)).toBe(0);
    // The learning step brings them back after ten minutes.
    expect(dueCount(keys, after, T0 + 11 * MINUTE)).toBe(6);
  });

  it('counts one direction apart from the other', () => {
    const keys = deckKeys(deck(1, true));
    const log = recordMark(emptyReviews(), 'c0', 'good', T0);
    expect(dueCount(keys, log, T0 + MINUTE)).toBe(1);
    expect(reviewDueKeys(keys, log, T0 + MINUTE)).toEqual(['c0:reverse']);
  });

  it('Review due takes the due reviews, most overdue first, then new cards up to the daily cap', () => {
    const keys = deckKeys(deck(30));
    let log = markAll(['c5', 'c3'], emptyReviews(), T0 - 60 * MINUTE, 'again');
    log = withNewPerDay(log, 4);
    const now = T0;
    // c5 and c3 were first seen today, so two of today's four new cards are used.
    expect(newSeenToday(log, now)).toBe(2);
    expect(reviewDueKeys(keys, log, now)).toEqual(['c5', 'c3', 'c0', 'c1']);
    expect(reviewDueCount(keys, log, now)).toBe(4);
    // The next day the allowance is whole again.
    const tomorrow = addDays(now, 1) + 9 * 60 * MINUTE;
    expect(newSeenToday(log, tomorrow)).toBe(0);
    expect(reviewDueKeys(keys, log, tomorrow)).toEqual(['c5', 'c3', 'c0', 'c1', 'c2', 'c4']);
    expect(reviewDueCount(keys, log, tomorrow)).toBe(6);
  });

  it('defaults the cap to 20 new cards a day', () => {
    const keys = deckKeys(deck(50));
    expect(reviewDueCount(keys, emptyReviews(), T0)).toBe(20);
    expect(dueCount(keys, emptyReviews(), T0)).toBe(50);
    const cap0 = withNewPerDay(emptyReviews(), 0);
    expect(reviewDueKeys(keys, cap0, T0)).toEqual([]);
  });

  it('tells when the deck is next due', () => {
    const keys = deckKeys(deck(2));
    expect(nextDue(keys, emptyReviews(), T0)).toBe(T0);
    const known = markAll(keys, emptyReviews(), T0);
    expect(nextDue(keys, known, T0 + MINUTE)).toBe(T0 + 10 * MINUTE);
    expect(describeNextDue(T0 + 10 * MINUTE, T0 + MINUTE)).toBe('This deck is next due in 9 minutes.');
    expect(describeNextDue(T0, T0)).toBe('Cards of this deck are due now.');
    expect(describeNextDue(T0 + 3 * 60 * MINUTE, T0)).toBe('This deck is next due in 3 hours.');
    expect(describeNextDue(addDays(T0, 1) + 60 * MINUTE, T0)).toMatch(/^This deck is next due tomorrow, /);
    expect(describeNextDue(addDays(T0, 4), T0)).toMatch(/^This deck is next due in 4 days, on /);
    // New cards held back by a spent cap come back at the next midnight.
    const capped = withNewPerDay(recordMark(emptyReviews(), 'c0', 'good', T0), 1);
    expect(nextDue(keys, capped, T0 + MINUTE)).toBe(T0 + 10 * MINUTE);
    expect(nextDue(['c1'], capped, T0 + MINUTE)).toBe(addDays(T0, 1));
    expect(nextDue([], emptyReviews(), T0)).toBeNull();
    expect(nextDue(keys, withNewPerDay(emptyReviews(), 0), T0)).toBeNull();
  });
});
