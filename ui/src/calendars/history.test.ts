import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { checkHistory, DEFAULT_KEEP_DAYS, historyWhen, keepDaysInRange, MAX_KEEP_DAYS, StoredHistorySchema } from './history';

describe('past events that stay', () => {
  it('is off until turned on, then keeps 30 days', () => {
    expect(historyWhen(false)).toBeUndefined();
    expect(historyWhen(true)).toEqual({ keepDays: DEFAULT_KEEP_DAYS });
    expect(DEFAULT_KEEP_DAYS).toBe(30);
  });

  it('takes whole days from 1 to 366, as the server does', () => {
    expect([0, 1, 366, 367, 1.5, NaN].map(keepDaysInRange)).toEqual([false, true, true, false, false, false]);
    expect(MAX_KEEP_DAYS).toBe(366);
    expect(checkHistory(undefined)).toEqual([]);
    expect(checkHistory({ keepDays: 30 })).toEqual([]);
    expect(checkHistory({ keepDays: 0 })).toEqual([{ path: 'history.keepDays', message: 'whole days from 1 to 366' }]);
  });

  it('reads a stored value out of range, or of another shape, as off', () => {
    expect(v.parse(StoredHistorySchema, { keepDays: 7 })).toEqual({ keepDays: 7 });
    expect(v.parse(StoredHistorySchema, { keepDays: 367 })).toBeUndefined();
    expect(v.parse(StoredHistorySchema, 'forever')).toBeUndefined();
    expect(v.parse(StoredHistorySchema, undefined)).toBeUndefined();
  });
});
