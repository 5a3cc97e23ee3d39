import { describe, expect, it } from 'vitest';
import { readableIcsDate } from './icsDate';

describe('readableIcsDate', () => {
  it('reads a UTC date-time with its weekday', () => {
    expect(readableIcsDate('20060120T231648Z')).toBe('Fri 20 Jan 2006, 23:16:48 UTC');
  });
  it('reads whole minutes without seconds, a floating time and a date', () => {
    expect(readableIcsDate('20241231T090000Z')).toBe('Tue 31 Dec 2024, 09:00 UTC');
    expect(readableIcsDate('20241231T090000')).toBe('Tue 31 Dec 2024, 09:00 (local time)');
    expect(readableIcsDate('20240229')).toBe('Thu 29 Feb 2024');
  });
  it('names the zone of a time its property gives a TZID, never "(local time)"', () => {
    expect(readableIcsDate('20261201T090000', 'Europe/Berlin')).toBe('Tue 1 Dec 2026, 09:00 Europe/Berlin');
    expect(readableIcsDate('20261201T090000Z', 'Europe/Berlin')).toBe('Tue 1 Dec 2026, 09:00 UTC');
    expect(readableIcsDate('20261201T090000', ' ')).toBe('Tue 1 Dec 2026, 09:00 (local time)');
    expect(readableIcsDate('20261201', 'Europe/Berlin')).toBe('Tue 1 Dec 2026');
  });
  it('is null for text and impossible dates', () => {
    expect(readableIcsDate('Team meeting')).toBeNull();
    expect(readableIcsDate('20230229')).toBeNull();
    expect(readableIcsDate('20240101T250000Z')).toBeNull();
  });
});
