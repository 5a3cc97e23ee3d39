// A readable form of the raw DATE and DATE-TIME values of a feed (RFC 5545 3.3.4/3.3.5), shown
// beside the raw value so the person mapping DTSTART/DTEND sees which day it is.

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/**
 * `20060120T231648Z` → `Fri 20 Jan 2006, 23:16:48 UTC`; `20060120` → `Fri 20 Jan 2006`; a time
 * without Z is in the zone its property names (`zone`, the event's TZID: `09:00 Europe/Berlin`),
 * else floating, local to whoever reads it. Null for anything that is not one. The weekday is
 * computed in UTC from the written date, so no time zone can shift it.
 */
export function readableIcsDate(value: string, zone?: string): string | null {
  const match = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z?))?$/.exec(value.trim());
  if (!match) return null;
  const [, y, mo, d, h, mi, s, z] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  const datePart = `${DAYS[date.getUTCDay()] ?? ''} ${day} ${MONTHS[month - 1] ?? ''} ${year}`;
  if (h === undefined || mi === undefined || s === undefined) return datePart;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 60) return null;
  const time = s === '00' ? `${h}:${mi}` : `${h}:${mi}:${s}`;
  const named = zone?.trim() ?? '';
  return `${datePart}, ${time} ${z === 'Z' ? 'UTC' : named !== '' ? named : '(local time)'}`;
}
