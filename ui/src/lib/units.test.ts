import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatBytes, formatCount, formatEventCount } from './units';

describe('sizes for people', () => {
  it('counts bytes, then KB, MB, GB and TB, 1024-based', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(980)).toBe('980 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(12_595)).toBe('12.3 KB');
    expect(formatBytes(1_468_006)).toBe('1.4 MB');
    expect(formatBytes(3.5 * 1024 ** 3)).toBe('3.5 GB');
    expect(formatBytes(2 * 1024 ** 4)).toBe('2.0 TB');
    expect(formatBytes(5000 * 1024 ** 4)).toBe('5000 TB');
  });

  it('gives a tenth below a hundred of the unit, whole numbers from there on', () => {
    expect(formatBytes(1024)).toBe('1.0 KB');
    expect(formatBytes(73_728)).toBe('72.0 KB');
    expect(formatBytes(70_123)).toBe('68.5 KB');
    expect(formatBytes(99.94 * 1024)).toBe('99.9 KB');
    expect(formatBytes(99.96 * 1024)).toBe('100 KB');
    expect(formatBytes(126_362)).toBe('123 KB');
    expect(formatBytes(268_435_456)).toBe('256 MB');
  });

  it('moves up a unit rather than show 1024 of one', () => {
    expect(formatBytes(1024 * 1024 - 1)).toBe('1.0 MB');
    expect(formatBytes(1024 ** 3 - 1)).toBe('1.0 GB');
  });

  it('tells what is not a size as none', () => {
    expect(formatBytes(-5)).toBe('0 B');
    expect(formatBytes(Number.NaN)).toBe('0 B');
    expect(formatBytes(Number.POSITIVE_INFINITY)).toBe('0 B');
  });
});

describe('counts for people', () => {
  it('groups thousands', () => {
    expect(formatCount(3)).toBe('3');
    expect(formatCount(1_234_567)).toBe('1,234,567');
    expect(formatCount(1000)).toBe('1,000');
    expect(formatCount(-1234)).toBe('-1,234');
  });

  it('says what Intl says in English, grouped by hand for whole numbers', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer(),
          fc.maxSafeInteger(),
          fc.maxSafeInteger().map((n) => -n),
          fc.constant(-0),
          fc.double(),
        ),
        (count) => {
          expect(formatCount(count)).toBe(count.toLocaleString('en'));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('says events, one or many', () => {
    expect(formatEventCount(0)).toBe('0 events');
    expect(formatEventCount(1)).toBe('1 event');
    expect(formatEventCount(1234)).toBe('1,234 events');
  });
});
