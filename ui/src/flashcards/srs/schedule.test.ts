// The scheduling adapter on an injected clock: two grades onto FSRS, states that survive storage.
import { describe, expect, it } from 'vitest';
import { grade, isDue, parseItemState, replay, STATE_LEARNING, STATE_REVIEW, dueAt, kindOf } from './schedule';

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

describe('schedule', () => {
  it('treats a never-reviewed item as due and a freshly known one as not due', () => {
    expect(isDue(null, T0)).toBe(true);
    const known = grade(null, 'good', T0);
    expect(isDue(known, T0)).toBe(false);
    expect(kindOf(known)).toBe(STATE_LEARNING);
    // FSRS's default learning steps: Good on a new card comes back after 10 minutes, Again after 1.
    expect(dueAt(known)).toBe(T0 + 10 * MINUTE);
    expect(dueAt(grade(null, 'again', T0))).toBe(T0 + MINUTE);
  });

  it('spaces an item further out with every Good and brings it back soon after an Again', () => {
    let state = grade(null, 'good', T0);
    state = grade(state, 'good', dueAt(state));
    expect(kindOf(state)).toBe(STATE_REVIEW);
    const firstInterval = dueAt(state) - T0;
    expect(firstInterval).toBeGreaterThanOrEqual(DAY);
    const later = grade(state, 'good', dueAt(state));
    expect(dueAt(later) - dueAt(state)).toBeGreaterThan(firstInterval);
    const lapsed = grade(state, 'again', dueAt(state));
    expect(dueAt(lapsed) - dueAt(state)).toBeLessThan(DAY);
    expect(lapsed[6]).toBe(1);
  });

  it('replays marks to the same state as grading them one by one', () => {
    const marks = [
      { at: T0, grade: 'good' as const },
      { at: T0 + 10 * MINUTE, grade: 'again' as const },
      { at: T0 + DAY, grade: 'good' as const },
    ];
    let state = null;
    for (const mark of marks) state = grade(state, mark.grade, mark.at);
    expect(replay(marks)).toEqual(state);
    expect(replay([])).toBeNull();
  });

  it('continues identically from a state that went through JSON', () => {
    const state = grade(grade(null, 'good', T0), 'good', T0 + 10 * MINUTE);
    const stored = parseItemState(JSON.parse(JSON.stringify(state)));
    expect(stored).toEqual(state);
    if (!stored) return;
    expect(grade(stored, 'good', T0 + 3 * DAY)).toEqual(grade(state, 'good', T0 + 3 * DAY));
  });

  it('rejects stored states of the wrong shape', () => {
    const good = grade(null, 'good', T0);
    expect(parseItemState([...good])).toEqual(good);
    for (const bad of [null, {}, [1, 2, 3], [...good.slice(0, 8), 'x'], [...good.slice(0, 7), 9, 0], [...good.slice(0, 8), Number.NaN]]) {
      expect(parseItemState(bad)).toBeNull();
    }
  });
});
