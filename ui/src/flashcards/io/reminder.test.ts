import { describe, expect, it } from 'vitest';
import { backupReminder } from './reminder';

const NOW = new Date('2025-06-30T12:00:00.000Z');
const daysAgo = (days: number) => new Date(NOW.getTime() - days * 86_400_000).toISOString();
const base = { deckCount: 2, lastExport: null, dismissedAt: null, deckDates: [daysAgo(1)], now: NOW };

describe('backupReminder', () => {
  it('stays quiet without decks', () => {
    expect(backupReminder({ ...base, deckCount: 0, lastExport: daysAgo(90) })).toBeNull();
  });

  it('reminds 30 days after the last export, not before', () => {
    expect(backupReminder({ ...base, lastExport: daysAgo(29) })).toBeNull();
    expect(backupReminder({ ...base, lastExport: daysAgo(30) })).toBe(30);
    expect(backupReminder({ ...base, lastExport: daysAgo(45.5) })).toBe(45);
  });

  it('counts from the oldest deck when nothing was ever exported', () => {
    expect(backupReminder({ ...base, deckDates: [daysAgo(3), daysAgo(10)] })).toBeNull();
    expect(backupReminder({ ...base, deckDates: [daysAgo(3), daysAgo(31), 'garbage'] })).toBe(31);
    expect(backupReminder({ ...base, deckDates: ['garbage'] })).toBeNull();
  });

  it('stays quiet for 30 days after a dismissal', () => {
    expect(backupReminder({ ...base, lastExport: daysAgo(60), dismissedAt: daysAgo(5) })).toBeNull();
    expect(backupReminder({ ...base, lastExport: daysAgo(60), dismissedAt: daysAgo(31) })).toBe(60);
  });

  it('treats an unreadable export time as none', () => {
    expect(backupReminder({ ...base, lastExport: 'nope', deckDates: [daysAgo(40)] })).toBe(40);
  });
});
