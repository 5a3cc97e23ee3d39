// The review log: marks logged and scheduled, undo, validation on read, the size bound, and each
// item's state derived from seeds and marks alone.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_NEW_PER_DAY,
  deriveItems,
  emptyReviews,
  MAX_LOG_ENTRIES,
  parseLog,
  parseNewPerDay,
  parseReviews,
  recordMark,
  toStored,
  undoMark,
  withNewPerDay,
  type ReviewRecord,
} from './reviewLog';
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

  it('keeps the log in time order when the clock goes back, each mark at a time of its own', () => {
    const log = recordMark(recordMark(emptyReviews(), 'a', 'good', T0), 'b', 'good', T0 - 5 * MINUTE);
    expect(log.log.map((entry) => entry[1])).toEqual([T0, T0 + 1]);
    const same = recordMark(recordMark(emptyReviews(), 'a', 'good', T0), 'a', 'again', T0);
    expect(same.log).toEqual([
      ['a', T0, 'good'],
      ['a', T0 + 1, 'again'],
    ]);
    expect(same.items).toEqual(deriveItems({}, same.log));
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

describe('states derived from seeds and marks', () => {
  const anki = grade(grade(null, 'good', T0 - 30 * 24 * 60 * MINUTE), 'good', T0 - 10 * 24 * 60 * MINUTE);
  const seeded = (): ReviewRecord => ({ ...emptyReviews(), seeds: { a: { through: T0, state: anki } }, items: { a: anki }, log: [['a', T0, 'good']] });

  it('grades a seed with the marks after its `through` only', () => {
    const record = recordMark(seeded(), 'a', 'again', T0 + MINUTE);
    expect(record.items.a).toEqual(grade(anki, 'again', T0 + MINUTE));
    expect(deriveItems(record.seeds, record.log)).toEqual(record.items);
    // Undone, the item is back at its seed.
    expect(undoMark(record, 'a').items.a).toEqual(anki);
    expect(undoMark(undoMark(record, 'a'), 'a').items.a).toEqual(anki);
  });

  it('reads the log in one order whatever order it was stored in, each mark once', () => {
    const log = [
      ['b', T0, 'good'],
      ['a', T0, 'good'],
      ['a', T0, 'again'],
      ['b', T0, 'good'],
    ];
    const expected = [
      ['a', T0, 'again'],
      ['a', T0, 'good'],
      ['b', T0, 'good'],
    ];
    expect(parseLog(log)).toEqual(expected);
    expect(parseLog([...log].reverse())).toEqual(expected);
  });

  it('round-trips seeds through storage', () => {
    const record = recordMark(seeded(), 'b', 'good', T0 + MINUTE);
    expect(parseReviews(JSON.parse(JSON.stringify(toStored(record))))).toEqual(record);
  });

  it('folds the marks beyond the cap into seeds, so no item’s schedule changes', () => {
    let record = seeded();
    for (let i = 1; i <= 12; i += 1) record = recordMark(record, ['a', 'b', 'c'][i % 3] ?? 'a', i % 4 === 0 ? 'again' : 'good', T0 + i * 10 * MINUTE, 5);
    expect(record.log).toHaveLength(5);
    let whole = seeded();
    for (let i = 1; i <= 12; i += 1) whole = recordMark(whole, ['a', 'b', 'c'][i % 3] ?? 'a', i % 4 === 0 ? 'again' : 'good', T0 + i * 10 * MINUTE);
    expect(record.items).toEqual(whole.items);
    expect(deriveItems(record.seeds, record.log)).toEqual(record.items);
  });

  it('gives a record from before seeds a seed for each state its marks do not explain, keeping every state', () => {
    const replayed = grade(null, 'good', T0);
    const parsed = parseReviews({
      type: 'reviews',
      version: 1,
      newPerDay: 20,
      items: { a: anki, b: replayed, c: anki },
      log: [
        ['a', T0, 'good'],
        ['b', T0, 'good'],
      ],
    });
    expect(parsed?.seeds).toEqual({ a: { through: T0, state: anki }, c: { through: 0, state: anki } });
    expect(parsed?.items).toEqual({ a: anki, b: replayed, c: anki });
    // Once seeds are stored, a state neither a seed nor a mark explains is not kept.
    expect(parseReviews({ type: 'reviews', version: 1, newPerDay: 20, seeds: {}, items: { c: anki }, log: [] })?.items).toEqual({});
  });
});
