// A feed of coming events for the agenda page's tests and its Lighthouse run: dates counted from
// today, so the page always has something to show.

/** `YYYYMMDD` of the day `offset` days from today (UTC). */
function day(offset: number): string {
  return new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '');
}

/** Coming events (and one past): a talk with a place and a long description, a weekly choir, a holiday. */
export function comingFeed(): string {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Hearth tests//EN', 'X-WR-TIMEZONE:Europe/Amsterdam'];
  const event = (uid: string, summary: string, more: string[]) =>
    lines.push('BEGIN:VEVENT', `UID:${uid}`, 'DTSTAMP:20250101T000000Z', `SUMMARY:${summary}`, ...more, 'END:VEVENT');
  event('past', 'Last week’s talk', [`DTSTART:${day(-7)}T170000Z`, `DTEND:${day(-7)}T180000Z`]);
  event('talk', 'Talk: <b>Gardens</b> & bees', [
    `DTSTART:${day(1)}T170000Z`,
    `DTEND:${day(1)}T183000Z`,
    'LOCATION:Library\\, room 2',
    'DESCRIPTION:Bring a friend.\\nTea afterwards in the hall; the talk is free and everyone is welcome.',
  ]);
  event('choir', 'Choir', [`DTSTART:${day(-14)}T180000Z`, `DTEND:${day(-14)}T200000Z`, 'RRULE:FREQ=WEEKLY']);
  event('holiday', 'Holiday', [`DTSTART;VALUE=DATE:${day(3)}`, `DTEND;VALUE=DATE:${day(5)}`]);
  lines.push('END:VCALENDAR');
  return `${lines.join('\r\n')}\r\n`;
}
