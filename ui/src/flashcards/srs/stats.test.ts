// Progress on an injected clock: states, 30-day retention, the 12-week heatmap and the streak.
import { describe, expect, it } from 'vitest';
import { addDays, startOfDay, startOfWeek } from './days';
import { emptyReviews, recordMark, type ReviewRecord } from './reviewLog';
import { deckProgress, heatLevel, HEATMAP_WEEKS } from './stats';

const HOUR = 3_600_000;
// Local times, so day boundaries hold in any time zone the tests run in. 2026-03-11 is a Wednesday.
const NOW = new Date(2026, 2, 11, 18, 0, 0).getTime();
const day = (offset: number, hour = 10) => addDays(NOW, offset) + hour * HOUR;

/** A log of these marks, given oldest first. */
function marks(list: [string, number, 'good' | 'again'][]): ReviewRecord {
  return list.reduce((log, [key, at, grade]) => recordMark(log, key, grade, at), emptyReviews());
}

describe('deck progress', () => {
  it('counts items as new, learning and known', () => {
    let log = marks([['a', day(-10), 'good']]);
    log = recordMark(log, 'a', 'good', day(-10, 11));
    log = recordMark(log, 'b', 'again', day(-1));
    const progress = deckProgress(['a', 'b', 'c', 'd'], log, NOW);
    expect(progress).toMatchObject({ new: 2, learning: 1, known: 1, totalReviews: 3 });
  });

  it('measures retention over the last 30 days on repeat reviews only', () => {
    const log = marks([
      ['a', day(-40), 'good'],
      ['a', day(-35), 'again'], // older than 30 days
      ['a', day(-29), 'good'],
      ['a', day(-20), 'good'],
      ['b', day(-5), 'again'], // first sight: not retention
      ['b', day(-4), 'again'],
      ['b', day(-3), 'good'],
    ]);
    expect(deckProgress(['a', 'b'], log, NOW).retention).toEqual({ reviews: 4, knew: 3 });
    expect(deckProgress(['a'], emptyReviews(), NOW).retention).toEqual({ reviews: 0, knew: 0 });
  });

  it('lays out twelve weeks of days, Monday first, ending with this week', () => {
    const log = marks([
      ['c', day(-200), 'good'],
      ['a', day(-2), 'good'],
      ['a', day(0, 8), 'good'],
      ['b', day(0, 9), 'good'],
    ]);
    const { heatmap } = deckProgress(['a', 'b', 'c'], log, NOW);
    expect(heatmap).toHaveLength(HEATMAP_WEEKS * 7);
    expect(heatmap[0]?.day).toBe(startOfWeek(addDays(NOW, -7 * (HEATMAP_WEEKS - 1))));
    expect(new Date(heatmap[0]?.day ?? 0).getDay()).toBe(1);
    const today = heatmap.find((cell) => cell.day === startOfDay(NOW));
    expect(today).toEqual({ day: startOfDay(NOW), count: 2, future: false });
    expect(heatmap.find((cell) => cell.day === addDays(NOW, -2))?.count).toBe(1);
    // Wednesday: Thursday to Sunday of this week are still to come.
    expect(heatmap.filter((cell) => cell.future)).toHaveLength(4);
    expect(heatmap.reduce((sum, cell) => sum + cell.count, 0)).toBe(3);
  });

  it('counts the streak up to today, or up to yesterday before today’s practice', () => {
    const log = marks([
      ['a', day(-5), 'good'],
      ['a', day(-3), 'good'],
      ['a', day(-2), 'good'],
      ['a', day(-1, 23), 'good'],
    ]);
    expect(deckProgress(['a'], log, NOW).streak).toBe(3);
    expect(deckProgress(['a'], recordMark(log, 'a', 'good', day(0, 7)), NOW).streak).toBe(4);
    expect(deckProgress(['a'], log, addDays(NOW, 2) + 10 * HOUR).streak).toBe(0);
    expect(deckProgress(['a'], emptyReviews(), NOW).streak).toBe(0);
  });

  it('shades heatmap days in four steps relative to the busiest', () => {
    expect(heatLevel(0, 10)).toBe(0);
    expect(heatLevel(1, 10)).toBe(1);
    expect(heatLevel(5, 10)).toBe(2);
    expect(heatLevel(10, 10)).toBe(4);
    expect(heatLevel(3, 0)).toBe(0);
  });
});
