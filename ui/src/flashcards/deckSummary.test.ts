// The deck list's summaries: the counts they give at any later moment are the counts the whole
// deck gives (a property over random decks, marks and clocks), they stay small for big decks, and
// a stored one reads back as written while anything else reads as none.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { defaultMeta, emptyCard, normaliseForSave, type Deck } from './deck';
import { dueCountsAt, KEPT_TIMES, parseSummary, summarize, toStoredSummary } from './deckSummary';
import { deckKeys, dueCount, reviewDueCount } from './srs/due';
import { emptyReviews, recordMark, type ReviewRecord } from './srs/reviewLog';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 2, 1, 9, 30);

function deckOf(size: number, bidirectional: boolean): Deck {
  const cards = Array.from({ length: size }, (_, i) => ({ ...emptyCard(`c${i}`), front: `front ${i}`, back: `back ${i}`, tags: i % 3 === 0 ? ['verb'] : [] }));
  return normaliseForSave('d', { ...defaultMeta(), name: 'Deck', bidirectional }, cards, new Date(T0));
}

function logOf(deck: Deck, marks: readonly [number, number, boolean][], newPerDay: number): ReviewRecord {
  const keys = deckKeys(deck);
  let log = emptyReviews(newPerDay);
  for (const [which, offset, good] of [...marks].sort((a, b) => a[1] - b[1])) {
    log = recordMark(log, keys[which % keys.length] ?? 'gone', good ? 'good' : 'again', T0 + offset);
  }
  return log;
}

describe('deck summaries', () => {
  it('give the counts the whole deck gives, at the time made and at any later time they answer', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.boolean(),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: -40 * DAY, max: 2 * DAY }), fc.boolean()), { maxLength: 120 }),
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: 0, max: 3 * DAY }),
        fc.array(fc.integer({ min: 0, max: 90 * DAY }), { minLength: 1, maxLength: 6 }),
        (size, both, marks, newPerDay, madeAfter, laters) => {
          const deck = deckOf(size, both);
          const reviews = logOf(deck, marks, newPerDay);
          const keys = deckKeys(deck);
          const made = T0 + madeAfter;
          const { schedule } = summarize(deck, reviews, made);
          for (const later of [0, ...laters]) {
            const now = made + later;
            const counts = dueCountsAt(schedule, now);
            if (later === 0) expect(counts).not.toBeNull();
            if (counts) expect(counts).toEqual({ due: dueCount(keys, reviews, now), reviewDue: reviewDueCount(keys, reviews, now) });
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps a few due times however big the deck, and stops answering once unkept ones may be due', () => {
    const deck = deckOf(500, false);
    const marks: [number, number, boolean][] = Array.from({ length: 500 }, (_, i) => [i, -DAY + i * 1000, true]);
    const reviews = logOf(deck, marks, 20);
    const made = T0 - DAY + 500_000;
    const { schedule } = summarize(deck, reviews, made);
    expect(schedule.dueBy).toBe(0);
    expect(schedule.times).toHaveLength(KEPT_TIMES);
    expect(schedule.later).toBe(500 - KEPT_TIMES);
    const last = schedule.times[KEPT_TIMES - 1] ?? 0;
    expect(dueCountsAt(schedule, last - 1)).not.toBeNull();
    expect(dueCountsAt(schedule, last)).toBeNull();
    // Nor before it was made: a clock set back.
    expect(dueCountsAt(schedule, made - 1)).toBeNull();
  });

  it('holds the list fields: card count, tags once and sorted, languages, dates', () => {
    const deck = { ...deckOf(4, false), author: 'Ann', description: 'About', sourceLang: 'de', targetLang: 'ja' };
    const summary = summarize(deck, emptyReviews(), T0);
    expect(summary).toMatchObject({
      id: 'd',
      name: 'Deck',
      author: 'Ann',
      description: 'About',
      sourceLang: 'de',
      targetLang: 'ja',
      cardCount: 4,
      tags: ['verb'],
    });
    expect(summary.createdAt).toBe(deck.createdAt);
  });

  it('reads back what it stores, and nothing else', () => {
    const deck = deckOf(30, true);
    const summary = summarize(
      deck,
      logOf(
        deck,
        [
          [1, -DAY, true],
          [2, 0, false],
        ],
        20,
      ),
      T0,
    );
    const stored = JSON.parse(JSON.stringify(toStoredSummary(summary, 1234, -1))) as unknown;
    expect(parseSummary(stored, 'd')).toEqual({ ...summary, deckLength: 1234, reviewsLength: -1 });
    expect(parseSummary(null, 'd')).toBeNull();
    // Another version (1: from before the practice count) is rebuilt, not read.
    expect(parseSummary({ ...(stored as object), version: 1 }, 'd')).toBeNull();
    expect(parseSummary({ ...(stored as object), version: 3 }, 'd')).toBeNull();
    expect(parseSummary({ ...(stored as object), practice: { ...summary.practice, items: -1 } }, 'd')).toBeNull();
    expect(parseSummary({ ...(stored as object), cardCount: -1 }, 'd')).toBeNull();
    expect(parseSummary({ ...(stored as object), schedule: { ...summary.schedule, times: [3, 2] } }, 'd')).toBeNull();
  });
});
