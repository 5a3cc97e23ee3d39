// Times in words, for sentences and lists: instants as the server writes them (RFC 3339), how long
// ago something was, and when, told in a time zone. Pure: the clock and the zone come in.
import * as v from 'valibot';

export interface WhenOptions {
  /** The IANA zone times are told in; the browser's own when absent. */
  timeZone?: string;
}

// RFC 3339 as the server writes it; Date.parse alone would take '5' as the year 2005.
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i;

export const instantSchema = v.pipe(
  v.string(),
  v.regex(RFC3339),
  v.transform((value) => new Date(value)),
  v.check((date) => !Number.isNaN(date.getTime())),
);

/** An instant, or null for anything else (missing included). */
export const instant = v.fallback(v.nullable(instantSchema), null);

const DAY_MS = 86_400_000;

const dayFormats = new Map<string, Intl.DateTimeFormat>();

/** Days since 1970 of the calendar date `date` has in the zone: for "today", "Monday", "yesterday". */
function dayNumber(date: Date, timeZone: string | undefined): number {
  const key = timeZone ?? '';
  let format = dayFormats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: 'numeric', day: 'numeric' });
    dayFormats.set(key, format);
  }
  const parts = format.formatToParts(date);
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value ?? NaN);
  return Date.UTC(part('year'), part('month') - 1, part('day')) / DAY_MS;
}

// Made on first use, not when the module loads: the first one of its kind costs tens of
// milliseconds on a phone (ICU's data), and a screen that imports this module may never say "ago".
let relativeFormat: Intl.RelativeTimeFormat | undefined;
const relative = () => (relativeFormat ??= new Intl.RelativeTimeFormat('en', { numeric: 'auto' }));

/**
 * How long ago `then` was: "just now", "12 minutes ago", "3 hours ago", then calendar days in the
 * zone ("yesterday", "4 days ago"), months and years. A time after `now` (a clock ahead) is "just now".
 */
export function timeAgo(then: Date, now: Date, options: WhenOptions = {}): string {
  const seconds = Math.max(0, (now.getTime() - then.getTime()) / 1000);
  if (seconds < 45) return 'just now';
  if (seconds < 45 * 60) return relative().format(-Math.max(1, Math.round(seconds / 60)), 'minute');
  if (seconds < 22 * 3600) return relative().format(-Math.round(seconds / 3600), 'hour');
  const days = Math.max(1, dayNumber(now, options.timeZone) - dayNumber(then, options.timeZone));
  if (days < 30) return relative().format(-days, 'day');
  if (days < 365) return relative().format(-Math.max(1, Math.round(days / 30.44)), 'month');
  return relative().format(-Math.max(1, Math.round(days / 365.25)), 'year');
}

/** 08:00, in the zone. */
export function clockTime(date: Date, options: WhenOptions = {}, withSeconds = false): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: options.timeZone,
    hour: '2-digit',
    minute: '2-digit',
    ...(withSeconds ? { second: '2-digit' } : {}),
    hourCycle: 'h23',
  }).format(date);
}

/**
 * When something happened, for a sentence: today by the clock ("since 08:00", "at 08:00"), within
 * the last six days by the weekday ("since Monday", "on Monday"), else by the date ("3 November",
 * with the year when it is not this year's).
 */
export function whenPhrase(then: Date, now: Date, style: 'since' | 'at', options: WhenOptions = {}): string {
  const { timeZone } = options;
  const days = dayNumber(now, timeZone) - dayNumber(then, timeZone);
  const word = (other: string) => (style === 'since' ? 'since' : other);
  if (days <= 0) return `${word('at')} ${clockTime(then, options)}`;
  if (days <= 6) return `${word('on')} ${new Intl.DateTimeFormat('en-GB', { timeZone, weekday: 'long' }).format(then)}`;
  const sameYear = new Intl.DateTimeFormat('en-GB', { timeZone, year: 'numeric' });
  const year = sameYear.format(then) === sameYear.format(now) ? {} : { year: 'numeric' as const };
  return `${word('on')} ${new Intl.DateTimeFormat('en-GB', { timeZone, day: 'numeric', month: 'long', ...year }).format(then)}`;
}

/**
 * A moment in a list, to the minute, in the zone: "25 November, 04:00", with the year when it is
 * not this year's ("3 November 2025, 04:00").
 */
export function dateTime(then: Date, now: Date, options: WhenOptions = {}): string {
  const { timeZone } = options;
  const sameYear = new Intl.DateTimeFormat('en-GB', { timeZone, year: 'numeric' });
  const year = sameYear.format(then) === sameYear.format(now) ? {} : { year: 'numeric' as const };
  return `${new Intl.DateTimeFormat('en-GB', { timeZone, day: 'numeric', month: 'long', ...year }).format(then)}, ${clockTime(then, options)}`;
}

const MONTH_NUMBERS: Readonly<Record<string, number>> = { Jan: 0, Feb: 1, Mar: 2, Apr: 3, May: 4, Jun: 5, Jul: 6, Aug: 7, Sep: 8, Oct: 9, Nov: 10, Dec: 11 };

/** An HTTP date as servers send it ("Fri, 27 Nov 2026 11:51:00 GMT", RFC 9110's IMF-fixdate); null for anything else. */
export function httpDate(text: string): Date | null {
  const match = /^[A-Z][a-z]{2}, (\d{2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/.exec(text.trim());
  const month = match ? MONTH_NUMBERS[match[2] ?? ''] : undefined;
  if (!match || month === undefined) return null;
  const [day, year, hour, minute, second] = [match[1], match[3], match[4], match[5], match[6]].map(Number) as [number, number, number, number, number];
  const date = new Date(Date.UTC(year, month, day, hour, minute, second));
  return date.getUTCDate() === day && hour < 24 && minute < 60 && second < 61 ? date : null;
}

/**
 * When a kept copy was fetched, for "showing the copy …": "fetched at 11:51 (12 minutes ago)",
 * "fetched on Monday (3 days ago)"; `text` as the server sends it (an HTTP date, or RFC 3339).
 */
export function fetchedWhen(text: string | null, now: Date, options: WhenOptions = {}): string {
  const parsed = text === null ? null : (httpDate(text) ?? v.parse(instant, text));
  if (!parsed) return 'fetched earlier';
  return `fetched ${whenPhrase(parsed, now, 'at', options)} (${timeAgo(parsed, now, options)})`;
}
