// Times in words, told in pinned zones so the machine's own zone cannot change them.
import { describe, expect, it } from 'vitest';
import { dateTime, fetchedWhen, httpDate, timeAgo, whenPhrase, type WhenOptions } from './when';

const UTC: WhenOptions = { timeZone: 'UTC' };
const AMSTERDAM: WhenOptions = { timeZone: 'Europe/Amsterdam' };
/** Wednesday 25 November 2026, 10:00 UTC. */
const NOW = new Date('2026-11-25T10:00:00Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

describe('how long ago', () => {
  it('says "just now" for under 45 seconds, and for times after now (a clock ahead)', () => {
    expect(timeAgo(NOW, NOW, UTC)).toBe('just now');
    expect(timeAgo(ago(44 * SECOND), NOW, UTC)).toBe('just now');
    expect(timeAgo(new Date(NOW.getTime() + 5 * MINUTE), NOW, UTC)).toBe('just now');
    expect(timeAgo(new Date(NOW.getTime() + 3 * DAY), NOW, UTC)).toBe('just now');
  });

  it('counts minutes, then hours, singular and plural', () => {
    expect(timeAgo(ago(50 * SECOND), NOW, UTC)).toBe('1 minute ago');
    expect(timeAgo(ago(12 * MINUTE), NOW, UTC)).toBe('12 minutes ago');
    expect(timeAgo(ago(44 * MINUTE), NOW, UTC)).toBe('44 minutes ago');
    expect(timeAgo(ago(50 * MINUTE), NOW, UTC)).toBe('1 hour ago');
    expect(timeAgo(ago(3 * HOUR), NOW, UTC)).toBe('3 hours ago');
    expect(timeAgo(ago(21 * HOUR), NOW, UTC)).toBe('21 hours ago');
  });

  it('counts calendar days in the zone from 22 hours on', () => {
    expect(timeAgo(ago(23 * HOUR), NOW, UTC)).toBe('yesterday');
    expect(timeAgo(ago(2 * DAY), NOW, UTC)).toBe('2 days ago');
    expect(timeAgo(ago(29 * DAY), NOW, UTC)).toBe('29 days ago');
    // 26 hours before 00:30 UTC is two UTC dates back, but one in New York.
    const now = new Date('2026-11-26T00:30:00Z');
    const then = new Date('2026-11-24T22:30:00Z');
    expect(timeAgo(then, now, UTC)).toBe('2 days ago');
    expect(timeAgo(then, now, { timeZone: 'America/New_York' })).toBe('yesterday');
  });

  it('counts months and years for old copies', () => {
    expect(timeAgo(ago(40 * DAY), NOW, UTC)).toBe('last month');
    expect(timeAgo(ago(90 * DAY), NOW, UTC)).toBe('3 months ago');
    expect(timeAgo(ago(400 * DAY), NOW, UTC)).toBe('last year');
    expect(timeAgo(ago(3 * 365 * DAY), NOW, UTC)).toBe('3 years ago');
  });
});

describe('when a failure began', () => {
  it('tells today by the clock, in the zone', () => {
    const eight = new Date('2026-11-25T08:00:00Z');
    expect(whenPhrase(eight, NOW, 'since', UTC)).toBe('since 08:00');
    expect(whenPhrase(eight, NOW, 'at', UTC)).toBe('at 08:00');
    expect(whenPhrase(eight, NOW, 'since', AMSTERDAM)).toBe('since 09:00');
    // A start after now (a clock ahead) is still today.
    expect(whenPhrase(new Date('2026-11-25T10:05:00Z'), NOW, 'at', UTC)).toBe('at 10:05');
  });

  it('tells the last six days by the weekday', () => {
    expect(whenPhrase(new Date('2026-11-24T23:30:00Z'), NOW, 'since', UTC)).toBe('since Tuesday');
    // The same instant is already Wednesday, today, in Amsterdam.
    expect(whenPhrase(new Date('2026-11-24T23:30:00Z'), NOW, 'since', AMSTERDAM)).toBe('since 00:30');
    expect(whenPhrase(new Date('2026-11-23T08:00:00Z'), NOW, 'since', UTC)).toBe('since Monday');
    expect(whenPhrase(new Date('2026-11-23T08:00:00Z'), NOW, 'at', UTC)).toBe('on Monday');
    expect(whenPhrase(new Date('2026-11-19T08:00:00Z'), NOW, 'since', UTC)).toBe('since Thursday');
  });

  it('tells anything older by the date, with the year when it is another', () => {
    expect(whenPhrase(new Date('2026-11-18T08:00:00Z'), NOW, 'since', UTC)).toBe('since 18 November');
    expect(whenPhrase(new Date('2026-11-03T08:00:00Z'), NOW, 'since', UTC)).toBe('since 3 November');
    expect(whenPhrase(new Date('2026-11-03T08:00:00Z'), NOW, 'at', UTC)).toBe('on 3 November');
    expect(whenPhrase(new Date('2025-11-03T08:00:00Z'), NOW, 'at', UTC)).toBe('on 3 November 2025');
  });
});

describe('a moment in a list', () => {
  it('tells the date and the time to the minute, in the zone', () => {
    expect(dateTime(new Date('2026-11-25T03:00:00Z'), NOW, UTC)).toBe('25 November, 03:00');
    expect(dateTime(new Date('2026-11-25T03:00:00Z'), NOW, AMSTERDAM)).toBe('25 November, 04:00');
    expect(dateTime(new Date('2026-11-24T23:30:00Z'), NOW, AMSTERDAM)).toBe('25 November, 00:30');
  });

  it('adds the year when it is not this year', () => {
    expect(dateTime(new Date('2025-11-03T08:05:00Z'), NOW, UTC)).toBe('3 November 2025, 08:05');
    expect(dateTime(new Date('2025-12-31T23:30:00Z'), new Date('2026-01-01T10:00:00Z'), UTC)).toBe('31 December 2025, 23:30');
    expect(dateTime(new Date('2025-12-31T23:30:00Z'), new Date('2026-01-01T10:00:00Z'), AMSTERDAM)).toBe('1 January, 00:30');
  });
});

describe('the time of a kept copy', () => {
  const now = new Date('2026-11-27T12:03:00Z');
  const utc = { timeZone: 'UTC' };

  it('reads an HTTP date as servers send it, and nothing else', () => {
    expect(httpDate('Fri, 27 Nov 2026 11:51:00 GMT')?.toISOString()).toBe('2026-11-27T11:51:00.000Z');
    expect(httpDate('Fri, 31 Nov 2026 11:51:00 GMT')).toBeNull();
    expect(httpDate('Fri, 27 Foo 2026 11:51:00 GMT')).toBeNull();
    expect(httpDate('2026-11-27T11:51:00Z')).toBeNull();
  });

  it('says when the copy was fetched in words, never the raw date', () => {
    expect(fetchedWhen('Fri, 27 Nov 2026 11:51:00 GMT', now, utc)).toBe('fetched at 11:51 (12 minutes ago)');
    expect(fetchedWhen('Mon, 23 Nov 2026 08:00:00 GMT', now, utc)).toBe('fetched on Monday (4 days ago)');
    expect(fetchedWhen('2026-11-27T11:51:00Z', now, utc)).toBe('fetched at 11:51 (12 minutes ago)');
    expect(fetchedWhen('yesterday', now, utc)).toBe('fetched earlier');
    expect(fetchedWhen(null, now, utc)).toBe('fetched earlier');
  });
});
