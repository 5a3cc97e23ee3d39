import { describe, expect, it } from 'vitest';
import { canMove, counter, currentEvent, firstSample, move, orderedKeys, pageOffset, withPage, type Page } from './samples';

const events = (from: number, count: number) => Array.from({ length: count }, (_, i) => ({ SUMMARY: `Event ${from + i + 1}` }));
const page = (offset: number, count: number, total: number): Page => ({ total, offset, events: events(offset, count) });

describe('sample navigation', () => {
  it('starts at the first event with the counter at 1/total', () => {
    const samples = firstSample(page(0, 100, 250));
    expect(counter(samples)).toBe('1/250');
    expect(currentEvent(samples)).toEqual({ SUMMARY: 'Event 1' });
  });

  it('shows 0/0 and cannot move in a feed without events', () => {
    const samples = firstSample(page(0, 0, 0));
    expect(counter(samples)).toBe('0/0');
    expect(counter(null)).toBe('0/0');
    expect(currentEvent(samples)).toBeUndefined();
    expect(canMove(samples, 1)).toBe(false);
    expect(canMove(samples, -1)).toBe(false);
    expect(move(samples, 1)).toEqual({ kind: 'none' });
  });

  it('stays within bounds', () => {
    const samples = firstSample(page(0, 3, 3));
    expect(move(samples, -1)).toEqual({ kind: 'none' });
    const last = { ...samples, index: 2 };
    expect(move(last, 1)).toEqual({ kind: 'none' });
    expect(canMove(last, -1)).toBe(true);
  });

  it('moves within the loaded page without fetching', () => {
    const next = move(firstSample(page(0, 3, 3)), 1);
    expect(next.kind).toBe('show');
    if (next.kind === 'show') {
      expect(counter(next.samples)).toBe('2/3');
      expect(currentEvent(next.samples)).toEqual({ SUMMARY: 'Event 2' });
    }
  });

  it('asks for the next page past the loaded one, and the previous page before it', () => {
    const atEnd = { ...firstSample(page(0, 100, 250)), index: 99 };
    expect(move(atEnd, 1)).toEqual({ kind: 'fetch', index: 100, offset: 100 });
    const second = withPage(page(100, 100, 250), 100);
    expect(counter(second)).toBe('101/250');
    expect(currentEvent(second)).toEqual({ SUMMARY: 'Event 101' });
    expect(move(second, -1)).toEqual({ kind: 'fetch', index: 99, offset: 0 });
  });

  it('clamps the index when a refetched feed has shrunk', () => {
    const samples = withPage(page(0, 5, 5), 40);
    expect(counter(samples)).toBe('5/5');
  });

  it('computes page offsets', () => {
    expect(pageOffset(0)).toBe(0);
    expect(pageOffset(99)).toBe(0);
    expect(pageOffset(100)).toBe(100);
    expect(pageOffset(7, 5)).toBe(5);
  });
});

describe('orderedKeys', () => {
  it('puts the mapped fields first in mapping order, then the rest as sent', () => {
    const event = { CN: 'a', DTSTART: 'b', LOCATION: 'c', SUMMARY: 'd', UID: 'e' };
    expect(orderedKeys(event, ['SUMMARY', 'DESCRIPTION', 'LOCATION', 'DTSTART', 'DTEND'])).toEqual(['SUMMARY', 'LOCATION', 'DTSTART', 'CN', 'UID']);
  });
});
