// The review log: marks logged and scheduled, undo, validation on read, the size bound.
import { describe, expect, it } from 'vitest';
import { DEFAULT_NEW_PER_DAY, emptyReviews, MAX_LOG_ENTRIES, parseNewPerDay, parseReviews, recordMark, toStored, undoMark, withNewPerDay } from './reviewLog';
import { grade } from './schedule';

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const MINUTE = 60_000;

describe('review log', () => {
  it('logs each mark and schedules its item, per key (direction)', () => {
    let log = emptyReviews();
    log = recordMark(log, 'c1', 'good', T0);
    log = recordMark(log, 'c1:reverse', 'again', T0 + MINUTE);
    expect(log.log).toEqual([
      ['c1', T0, 'good'],
      ['c1:reverse', T0 + MINUTE, 'again'],
    ]);
    expect(log.items.c1).toEqual(grade(null, 'good', T0));
    expect(log.items['c1:reverse']).toEqual(grade(null, 'again', T0 + MINUTE));
  });

  it('undo takes back the last mark of the item and its schedule', () => {
    const once = recordMark(emptyReviews(), 'c1', 'good', T0);
    const twice = recordMark(recordMark(once, 'c2', 'good', T0 + MINUTE), 'c1', 'again', T0 + 20 * MINUTE);
    const undone = undoMark(twice, 'c1');
    expect(undone.log).toEqual([
      ['c1', T0, 'good'],
      ['c2', T0 + MINUTE, 'good'],
    ]);
    expect(undone.items.c1).toEqual(once.items.c1);
    const none = undoMark(undoMark(undone, 'c1'), 'c2');
    expect(none.log).toEqual([]);
    expect(none.items).toEqual({});
    expect(undoMark(none, 'c9')).toBe(none);
  });

  it('keeps the log in time order when the clock goes back', () => {
    const log = recordMark(recordMark(emptyReviews(), 'a', 'good', T0), 'b', 'good', T0 - 5 * MINUTE);
    expect(log.log.map((entry) => entry[1])).toEqual([T0, T0]);
  });

  it('round-trips through storage and reads the stored shape', () => {
    const log = withNewPerDay(recordMark(recordMark(emptyReviews(), 'a', 'good', T0), 'b', 'again', T0 + MINUTE), 7);
    const stored = JSON.parse(JSON.stringify(toStored(log))) as unknown;
    expect(stored).toMatchObject({ type: 'reviews', version: 1, newPerDay: 7 });
    expect(parseReviews(stored)).toEqual(log);
  });

  it('refuses what is not a version-1 review record', () => {
    for (const value of [undefined, null, 42, 'x', [], {}, { type: 'deck', version: 1 }, { type: 'reviews', version: 2, log: [] }]) {
      expect(parseReviews(value)).toBeNull();
    }
  });

  it('drops bad marks, sorts the log, defaults the cap and rebuilds missing or broken states from the log', () => {
    const parsed = parseReviews({
      type: 'reviews',
      version: 1,
      newPerDay: -3,
      items: { a: 'broken', z: [1, 2] },
      log: [['a', T0 + MINUTE, 'again'], ['a', T0, 'good'], ['b', 'soon', 'good'], ['', T0, 'good'], ['c', T0, 'easy'], 'junk', ['d', T0, 'good', 'extra']],
    });
    expect(parsed).not.toBeNull();
    if (!parsed) return;
    expect(parsed.newPerDay).toBe(DEFAULT_NEW_PER_DAY);
    expect(parsed.log).toEqual([
      ['a', T0, 'good'],
      ['a', T0 + MINUTE, 'again'],
    ]);
    expect(parsed.items).toEqual({ a: grade(grade(null, 'good', T0), 'again', T0 + MINUTE) });
  });

  it('keeps at most MAX_LOG_ENTRIES marks, the newest, and every schedule', () => {
    let log = emptyReviews();
    const big = { ...log, log: Array.from({ length: MAX_LOG_ENTRIES }, (_, i) => [`k${i}`, T0 + i, 'good'] as const) };
    log = recordMark(big, 'last', 'good', T0 + MAX_LOG_ENTRIES);
    expect(log.log).toHaveLength(MAX_LOG_ENTRIES);
    expect(log.log[0]?.[0]).toBe('k1');
    expect(log.log.at(-1)?.[0]).toBe('last');
  });

  it('accepts a daily cap of a whole number from 0 to 9999', () => {
    expect(parseNewPerDay(0)).toBe(0);
    expect(parseNewPerDay('25')).toBe(25);
    expect(parseNewPerDay(9999)).toBe(9999);
    for (const bad of [-1, 1.5, 10000, '', 'ten', null, Number.NaN]) expect(parseNewPerDay(bad)).toBeNull();
  });
});
