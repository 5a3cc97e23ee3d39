import { describe, expect, it } from 'vitest';
import { emptyCard, type Card } from '../deck';
import { addDays } from './days';
import { deckKeys, dueCount, reviewDueCount } from './due';
import { countsHoldUntil, createDueCache } from './dueCache';
import { emptyReviews, recordMark, type ReviewRecord } from './reviewLog';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const T0 = new Date(2026, 2, 1, 9, 0).getTime();

const card = (id: string): Card => ({ ...emptyCard(id), front: id, back: `${id}!` });
const deck = { cards: ['a', 'b', 'c', 'd', 'e'].map(card), bidirectional: true };

/** Marks at T0 and a little after: some items due in minutes, some in days, some never seen. */
function reviews(): ReviewRecord {
  let log = emptyReviews(3);
  log = recordMark(log, 'a', 'good', T0);
  log = recordMark(log, 'a', 'good', T0 + 10 * MINUTE);
  log = recordMark(log, 'b', 'again', T0 + MINUTE);
  log = recordMark(log, 'c:reverse', 'good', T0 + 2 * MINUTE);
  log = recordMark(log, 'c:reverse', 'good', T0 + 15 * MINUTE);
  log = recordMark(log, 'c:reverse', 'good', T0 + 40 * MINUTE);
  return log;
}

describe('the due cache', () => {
  it('gives exactly what counting gives, at every moment over three days', () => {
    const log = reviews();
    const keys = deckKeys(deck);
    const countsFor = createDueCache();
    for (let now = T0 + HOUR; now < T0 + 3 * 24 * HOUR; now += 7 * MINUTE) {
      expect(countsFor(deck, log, now), new Date(now).toISOString()).toEqual({ due: dueCount(keys, log, now), reviewDue: reviewDueCount(keys, log, now) });
    }
  });

  it('counts again for a new log or deck, and reuses the counts otherwise', () => {
    const log = reviews();
    const countsFor = createDueCache();
    const first = countsFor(deck, log, T0 + HOUR);
    expect(countsFor(deck, log, T0 + HOUR + 1)).toBe(first);
    const marked = recordMark(log, 'd', 'good', T0 + HOUR);
    const now = T0 + HOUR + 2;
    const again = countsFor(deck, marked, now);
    expect(again).not.toBe(first);
    expect(again).toEqual({ due: dueCount(deckKeys(deck), marked, now), reviewDue: reviewDueCount(deckKeys(deck), marked, now) });
    expect(again.due).toBe(first.due - 1);
    const other = { ...deck, bidirectional: false };
    expect(countsFor(other, marked, now)).toEqual({ due: dueCount(deckKeys(other), marked, now), reviewDue: reviewDueCount(deckKeys(other), marked, now) });
  });

  it('holds the counts until the next item falls due, or midnight at the latest', () => {
    const log = reviews();
    const keys = deckKeys(deck);
    const now = T0 + 11 * MINUTE;
    const states = keys.map((key) => log.items[key]?.[0]).filter((at): at is number => at !== undefined && at > now);
    expect(countsHoldUntil(keys, log, now)).toBe(Math.min(...states, addDays(now, 1)));
    expect(countsHoldUntil(keys, emptyReviews(), now)).toBe(addDays(now, 1));
  });
});
